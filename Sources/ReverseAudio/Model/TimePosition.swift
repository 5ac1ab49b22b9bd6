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

    /// "12.500 s" or "66150s".
    public var description: String {
        switch self {
        case .seconds(let seconds): return String(format: "%.3f s", seconds)
        case .frames(let frames): return "\(frames)s"
        }
    }
}

/// A part of a file to decode: from `start` (default the beginning) to `end` or for `duration`
/// (default the end).
public struct TimeRange: Sendable, Equatable {
    /// Where the range starts; nil for the beginning.
    public var start: TimePosition?
    /// Where it ends (exclusive); nil for the end, or `start` + `duration`.
    public var end: TimePosition?
    /// How long it is, instead of an end.
    public var duration: TimePosition?

    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` when both an end and a duration are given.
    public init(start: TimePosition? = nil, end: TimePosition? = nil, duration: TimePosition? = nil) throws {
        if end != nil && duration != nil {
            throw ReverseAudioError.invalidOption("give an end or a duration, not both")
        }
        self.start = start
        self.end = end
        self.duration = duration
    }

    /// The frames `[start, end)` at `sampleRate`, checked against the stream's `length` when known.
    /// - Parameter clampingEnd: true to end a range that runs past the end of the file at its end
    ///   (`convert`); false to refuse it (an edit asks for exactly the frames it names).
    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` for an empty range or one starting (or,
    ///   unless `clampingEnd`, ending) past the end.
    func frames(atRate sampleRate: Int, length: Int64?, path: String, clampingEnd: Bool = true) throws -> Range<Int64> {
        let first = start?.frame(atRate: sampleRate) ?? 0
        var last = end?.frame(atRate: sampleRate) ?? duration.map { first + $0.frame(atRate: sampleRate) } ?? (length ?? Int64.max)
        if let length {
            let fileLength = "\(length) frames, \(String(format: "%.3f", Double(length) / Double(sampleRate))) s"
            if first >= length {
                throw ReverseAudioError.invalidOption(
                    "\(path): the range starts at frame \(first), after the end of the file (\(fileLength))")
            }
            if !clampingEnd && last > length {
                throw ReverseAudioError.invalidOption(
                    "\(path): the range ends at frame \(last), after the end of the file (\(fileLength))")
            }
            last = min(last, length)
        }
        guard last > first else {
            throw ReverseAudioError.invalidOption("\(path): the range is empty (start \(first) ≥ end \(last) frames)")
        }
        return first..<last
    }
}
