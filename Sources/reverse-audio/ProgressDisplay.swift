import ArgumentParser
import Foundation
import ReverseAudio

/// How progress is shown on standard error.
enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    /// A bar when standard error is a terminal, nothing otherwise.
    case auto
    /// Always a bar.
    case bar
    /// One JSON object per line: {"file":"…","fraction":0.42} (and "index"/"count" in a batch).
    case json
    /// Nothing.
    case none

    var resolved: ProgressStyle {
        self == .auto ? (Console.standardErrorIsTerminal ? .bar : .none) : self
    }
}

/// Draws per-file and overall progress. Called from worker threads.
final class ProgressDisplay: @unchecked Sendable {
    // @unchecked: mutable state is only touched under `lock`.
    private let style: ProgressStyle
    private let lock = NSLock()
    private var lastDrawn = ""

    init(style: ProgressStyle) {
        self.style = style.resolved
    }

    /// A handler for one file, `index` of `count` (1-based), whose work is one share of the batch.
    func handler(file: String, index: Int, count: Int) -> ProgressHandler? {
        switch style {
        case .none, .auto:
            return nil
        case .json:
            return { fraction in
                let object: [String: Any] = ["file": file, "fraction": (fraction * 10000).rounded() / 10000,
                                             "index": index, "count": count]
                if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                    Console.error(String(decoding: data, as: UTF8.self))
                }
            }
        case .bar:
            return { [self] fraction in draw(file: file, fraction: fraction, index: index, count: count) }
        }
    }

    /// Clears the bar so a result line can be printed.
    func clear() {
        guard style == .bar else { return }
        lock.lock()
        defer { lock.unlock() }
        if !lastDrawn.isEmpty {
            Console.errorRaw("\r" + String(repeating: " ", count: lastDrawn.count) + "\r")
            lastDrawn = ""
        }
    }

    private func draw(file: String, fraction: Double, index: Int, count: Int) {
        let width = 24
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var line = "[\(bar)] \(String(format: "%3d", Int(fraction * 100)))% \(file)"
        if count > 1 {
            let overall = (Double(index - 1) + fraction) / Double(count)
            line += "  (file \(index)/\(count), \(Int(overall * 100))% overall)"
        }
        lock.lock()
        defer { lock.unlock() }
        let padding = max(0, lastDrawn.count - line.count)
        Console.errorRaw("\r" + line + String(repeating: " ", count: padding))
        lastDrawn = line
    }
}
