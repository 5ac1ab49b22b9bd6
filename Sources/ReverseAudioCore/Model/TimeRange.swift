/// A part of a file: from `start` (default the beginning) to `end` or for `duration` (default
/// the end).
public struct TimeRange: Sendable, Equatable {
    /// Where the range starts; nil for the beginning.
    public var start: TimePosition?
    /// Where it ends (exclusive); nil for the end, or `start` + `duration`.
    public var end: TimePosition?
    /// How long it is, instead of an end.
    public var duration: TimePosition?

    /// - Throws: ``RangeError/invalidRange(reason:)`` when both an end and a duration are
    ///   given, when the end does not come after the start, or for an empty duration.
    public init(start: TimePosition? = nil, end: TimePosition? = nil, duration: TimePosition? = nil) throws {
        if end != nil && duration != nil {
            throw ReverseAudioError.range(.invalidRange(reason: "give an end or a duration, not both"))
        }
        if let duration, duration.isZero {
            throw ReverseAudioError.range(.invalidRange(reason: "the duration must be longer than 0"))
        }
        if let end, end.comesNoLaterThan(start ?? .frames(0)) {
            throw ReverseAudioError.range(.invalidRange(reason: "the end (\(end)) must come after the start (\(start ?? .frames(0)))"))
        }
        self.start = start
        self.end = end
        self.duration = duration
    }

    /// The frames `[start, end)` at `sampleRate`, each `round(seconds × rate)` as sox and
    /// ffmpeg count them; without an end, up to `Int64.max`, which a ``RangeSource`` reads as
    /// the end of its source. Whether the range lies within a file is for reading it to find
    /// out (a header may misstate the length).
    /// - Parameters:
    ///   - sampleRate: the rate the frames are counted at.
    ///   - path: the file, for messages.
    ///   - length: the file's frames, asked only for a start that rounding moved up: a start
    ///     inside the last frame (less than half a frame before the end, as 4.99999 s of a 5-s
    ///     file at 44.1 kHz, frame 220499.56) is that frame, where rounding would put it on the
    ///     end, and the range would be refused as starting after it.
    /// - Throws: ``RangeError/emptyRange(path:start:end:)`` for a range empty at this rate.
    package func frames(atRate sampleRate: Int, path: String, length: () -> Int64?) throws -> Range<Int64> {
        try frames(atRate: sampleRate, path: path, knownLength: length)
    }

    /// The frames `[start, end)` at `sampleRate`, each `round(seconds × rate)`, for a source
    /// whose length is not known (see ``frames(atRate:path:length:)``).
    /// - Throws: ``RangeError/emptyRange(path:start:end:)`` for a range empty at this rate.
    package func frames(atRate sampleRate: Int, path: String = "") throws -> Range<Int64> {
        try frames(atRate: sampleRate, path: path, knownLength: { nil })
    }

    private func frames(atRate sampleRate: Int, path: String, knownLength length: () -> Int64?) throws -> Range<Int64> {
        // Each frame saturates at 2^61 (see ``TimePosition/frame(atRate:)``): the sum cannot overflow.
        var first = start?.frame(atRate: sampleRate) ?? 0
        // Only a start rounded up can land on the end; only then is the length worth finding.
        if let start, first > start.heldFrame(atRate: sampleRate), first > 0, length() == first {
            first -= 1
        }
        let last = end?.frame(atRate: sampleRate) ?? duration.map { first + $0.frame(atRate: sampleRate) } ?? Int64.max
        guard last > first else {
            throw ReverseAudioError.range(.emptyRange(path: path, start: first, end: last))
        }
        return first..<last
    }
}

extension Range where Bound == Int64 {
    /// The frames of this range that a stream of `length` frames holds, if it holds any.
    package func count(within length: Int64) -> Int64 {
        Swift.max(0, Swift.min(upperBound, length) - lowerBound)
    }

    /// This range in a stream of exactly `length` frames: an open end (`Int64.max`) becomes the
    /// stream's end.
    /// - Throws: ``RangeError/rangePastEnd(path:frame:isStart:length:sampleRate:)``.
    package func within(length: Int64, sampleRate: Int, path: String) throws -> Range<Int64> {
        if lowerBound >= length {
            throw ReverseAudioError.range(.rangePastEnd(path: path, frame: lowerBound, isStart: true, length: length, sampleRate: sampleRate))
        }
        if upperBound != .max && upperBound > length {
            throw ReverseAudioError.range(.rangePastEnd(path: path, frame: upperBound, isStart: false, length: length, sampleRate: sampleRate))
        }
        return lowerBound..<Swift.min(upperBound, length)
    }
}
