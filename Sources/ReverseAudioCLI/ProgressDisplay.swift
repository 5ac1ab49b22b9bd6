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

/// Draws per-file and overall progress, with elapsed time, time left and speed (× real time,
/// as `ffmpeg` prints `speed=`). Called from worker threads, several files at once in a batch
/// with `--jobs`.
final class ProgressDisplay: @unchecked Sendable {
    // @unchecked: mutable state is only touched under `lock`.
    private let style: ProgressStyle
    private let lock = NSLock()
    private var lastDrawn = ""
    private let started = Date()
    /// Each running file's fraction and its audio's length in seconds (when known).
    private var running: [Int: (fraction: Double, seconds: Double?)] = [:]
    private var finishedFiles = 0
    private var finishedSeconds = 0.0
    /// Each file's audio length in seconds, once its conversion opened it.
    private var lengths: [Int: Double] = [:]

    init(style: ProgressStyle) {
        self.style = style.resolved
    }

    /// A handler for one file, `index` of `count` (1-based); its audio's length, for the speed,
    /// comes from ``setSeconds(_:index:)``.
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
            return { [self] fraction in update(file: file, index: index, count: count, fraction: fraction) }
        }
    }

    /// Notes the length in seconds of file `index`'s audio, for the speed, once it is known.
    func setSeconds(_ seconds: Double?, index: Int) {
        lock.lock()
        lengths[index] = seconds
        lock.unlock()
    }

    /// Notes that file `index` is done (its time counts towards the speed).
    func finished(index: Int) {
        lock.lock()
        if running.removeValue(forKey: index) != nil {
            finishedFiles += 1
            finishedSeconds += lengths[index] ?? 0
        }
        lengths[index] = nil
        lock.unlock()
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

    private func update(file: String, index: Int, count: Int, fraction: Double) {
        lock.lock()
        defer { lock.unlock() }
        running[index] = (fraction, lengths[index])
        let elapsed = Date().timeIntervalSince(started)
        let overall = count > 1 ? (Double(finishedFiles) + running.values.reduce(0) { $0 + $1.fraction }) / Double(count) : fraction
        let audioDone = finishedSeconds + running.values.reduce(0) { $0 + $1.fraction * ($1.seconds ?? 0) }
        let width = 24
        let filled = Int((overall * Double(width)).rounded(.down))
        var line = "[\(String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled))] "
            + String(format: "%3d%%", Int(overall * 100))
        line += " " + (count > 1 && running.count > 1 ? "\(running.count) files" : file)
        if count > 1 { line += " (\(finishedFiles + 1)/\(count))" }
        line += "  " + Self.clock(elapsed)
        if overall > 0.01 { line += " left " + Self.clock(elapsed * (1 - overall) / overall) }
        if audioDone > 0, elapsed > 0.2 { line += String(format: " speed=%.1fx", audioDone / elapsed) }
        let padding = max(0, lastDrawn.count - line.count)
        Console.errorRaw("\r" + line + String(repeating: " ", count: padding))
        lastDrawn = line
    }

    /// "1:05" or "1:02:03".
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }
}
