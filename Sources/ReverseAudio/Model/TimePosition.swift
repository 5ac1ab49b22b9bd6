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
    var isZero: Bool { self == .seconds(0) || self == .frames(0) }

    /// True when this position is at or before `other` whatever the rate: decided only when
    /// both are in the same form (seconds against frames depends on the rate).
    func comesNoLaterThan(_ other: TimePosition) -> Bool {
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

/// A part of a file to decode: from `start` (default the beginning) to `end` or for `duration`
/// (default the end).
public struct TimeRange: Sendable, Equatable {
    /// Where the range starts; nil for the beginning.
    public var start: TimePosition?
    /// Where it ends (exclusive); nil for the end, or `start` + `duration`.
    public var end: TimePosition?
    /// How long it is, instead of an end.
    public var duration: TimePosition?

    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` when both an end and a duration are
    ///   given, when the end does not come after the start, or for an empty duration.
    public init(start: TimePosition? = nil, end: TimePosition? = nil, duration: TimePosition? = nil) throws {
        if end != nil && duration != nil {
            throw ReverseAudioError.invalidOption("give an end or a duration, not both")
        }
        if let duration, duration.isZero {
            throw ReverseAudioError.invalidOption("the duration must be longer than 0")
        }
        if let end, end.comesNoLaterThan(start ?? .frames(0)) {
            throw ReverseAudioError.invalidOption("the end (\(end)) must come after the start (\(start ?? .frames(0)))")
        }
        self.start = start
        self.end = end
        self.duration = duration
    }

    /// The frames `[start, end)` at `sampleRate`; without an end, up to `Int64.max`, which
    /// ``PCMDecoder/limit(to:)`` reads as the end of the stream. Whether the range lies within
    /// the file is for the decode to find out (a header may misstate the length).
    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` for a range empty at this rate.
    func frames(atRate sampleRate: Int, path: String) throws -> Range<Int64> {
        let first = start?.frame(atRate: sampleRate) ?? 0
        let last = end?.frame(atRate: sampleRate) ?? duration.map { first + $0.frame(atRate: sampleRate) } ?? Int64.max
        guard last > first else {
            throw ReverseAudioError.invalidOption("\(path): the range is empty (start \(first) ≥ end \(last) frames)")
        }
        return first..<last
    }
}

extension Range where Bound == Int64 {
    /// The frames of this range that a stream of `length` frames holds, if it holds any.
    func count(within length: Int64) -> Int64 {
        Swift.max(0, Swift.min(upperBound, length) - lowerBound)
    }

    /// This range in a stream of exactly `length` frames: an open end (`Int64.max`) becomes the
    /// stream's end.
    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` when it starts or ends past the end.
    func within(length: Int64, sampleRate: Int, path: String) throws -> Range<Int64> {
        if lowerBound >= length {
            throw ReverseAudioError.rangePastEnd(path: path, what: "starts at frame \(lowerBound)", length: length, sampleRate: sampleRate)
        }
        if upperBound != .max && upperBound > length {
            throw ReverseAudioError.rangePastEnd(path: path, what: "ends at frame \(upperBound)", length: length, sampleRate: sampleRate)
        }
        return lowerBound..<Swift.min(upperBound, length)
    }
}

extension ReverseAudioError {
    /// A range that goes past the end of a stream of `length` frames, in the words every command uses.
    static func rangePastEnd(path: String, what: String, length: Int64, sampleRate: Int) -> ReverseAudioError {
        let seconds = String(format: "%.3f", Double(length) / Double(Swift.max(sampleRate, 1)))
        return .invalidOption("\(path): the range \(what), after the end of the file (\(length) frames, \(seconds) s)")
    }
}
