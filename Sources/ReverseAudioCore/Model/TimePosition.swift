import Foundation

/// A point or length on an audio timeline, as people write it: seconds (`12.5`),
/// `[[hh:]mm:]ss[.fff]` (`1:02.5`), or a frame count with an `s` suffix (`66150s`, as in SoX).
public enum TimePosition: Sendable, Equatable, CustomStringConvertible {
    /// A time in seconds; its frame is `round(seconds × rate)`.
    case seconds(Double)
    /// A frame index (or count), whatever the rate.
    case frames(Int64)

    /// Parses `text`; nil when it is none of the accepted forms or is negative.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("s"), let frames = Int64(trimmed.dropLast()), frames >= 0 {
            self = .frames(frames)
            return
        }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = Double(parts.last!), last >= 0, last.isFinite else { return nil }
        var seconds = last
        var unit = 60.0
        for part in parts.dropLast().reversed() {
            guard let value = Int(part), value >= 0 else { return nil }
            if parts.count > 1 && last >= 60 { return nil }
            seconds += Double(value) * unit
            unit *= 60
        }
        self = .seconds(seconds)
    }

    /// The frame this position names at `sampleRate`: `round(seconds × rate)`.
    public func frame(atRate sampleRate: Int) -> Int64 {
        switch self {
        case .seconds(let seconds): return Int64((seconds * Double(sampleRate)).rounded())
        case .frames(let frames): return frames
        }
    }

    /// True for a zero length in either form.
    package var isZero: Bool { self == .seconds(0) || self == .frames(0) }

    /// True when this position is at or before `other` whatever the rate: decided only when
    /// both are in the same form (seconds against frames depends on the rate).
    package func comesNoLaterThan(_ other: TimePosition) -> Bool {
        switch (self, other) {
        case (.seconds(let a), .seconds(let b)): return a <= b
        case (.frames(let a), .frames(let b)): return a <= b
        case (.seconds(let a), .frames(0)): return a <= 0
        case (.frames(let a), .seconds(0)): return a <= 0
        default: return false
        }
    }

    /// "12.500 s" or "66150s".
    public var description: String {
        switch self {
        case .seconds(let seconds): return String(format: "%.3f s", seconds)
        case .frames(let frames): return "\(frames)s"
        }
    }
}
