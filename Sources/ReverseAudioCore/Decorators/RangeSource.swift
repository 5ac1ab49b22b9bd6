/// A part of another source: its frames `[lowerBound, upperBound)`, on a timeline of its own
/// that starts at 0 (rodio's `take` and `skip` in one). Made by ``PCMSource/range(_:name:requiringWholeRange:)``.
///
/// The first read seeks the source to the range's start. A range that starts after the
/// source's end, or (when the whole range is required) at it or ending past it, fails with
/// ``RangeError/rangePastEnd(path:frame:isStart:length:sampleRate:)`` naming the true
/// length, which only reading may tell (a header can misstate it).
package final class RangeSource: PCMSource {
    private let source: any PCMSource
    /// The frames taken, on the source's timeline; an upper bound of `Int64.max` means its end.
    package let frames: Range<Int64>
    private let requiresWholeRange: Bool
    private let name: String
    private var started = false
    /// The index of the next frame read.
    private var position: Int64 = 0

    init(_ source: any PCMSource, frames: Range<Int64>, name: String, requiringWholeRange: Bool) {
        self.source = source
        self.frames = frames
        self.name = name
        requiresWholeRange = requiringWholeRange
    }

    /// The frames' sample format, rate and channels.
    package var format: PCMFormat { source.format }

    /// The range's length when its end is given, else what the source holds after its start.
    package var length: PCMLength {
        if frames.upperBound != .max { return PCMLength(frames: Int64(frames.count), source: .range) }
        let inner = source.length
        return PCMLength(frames: inner.frames.map { max(0, $0 - frames.lowerBound) }, source: inner.source)
    }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        if !started { try seek(to: 0, endingAt: nil) }
        let remaining = frames.upperBound == .max ? Int64.max : Int64(frames.count) - position
        guard remaining > 0 else { return nil }
        guard let chunk = try source.read(maximumFrames: Int(min(Int64(maximumFrames), remaining))) else {
            guard requiresWholeRange else { return nil }
            // The source ended here: its length is where the range reached.
            let end = frames.lowerBound + position
            if position == 0 && frames.lowerBound > 0 {
                // The start is the source's end: nothing of the range is there.
                throw ReverseAudioError.range(.rangePastEnd(path: name, frame: frames.lowerBound, isStart: true,
                                                     length: end, sampleRate: format.sampleRate))
            }
            if frames.upperBound != .max {
                throw ReverseAudioError.range(.rangePastEnd(path: name, frame: frames.upperBound, isStart: false,
                                                     length: end, sampleRate: format.sampleRate))
            }
            return nil
        }
        defer { position += Int64(chunk.frameCount) }
        return chunk.moved(to: position)
    }

    /// Moves so the next frame read is `frame` (see ``PCMSource/seek(to:endingAt:)``).
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        // Past the range's end is its end, as past a source's end is the source's (the contract).
        let target = min(frames.lowerBound + max(frame, 0), frames.upperBound)
        let innerEnd = end.map { frames.lowerBound + $0 } ?? (frames.upperBound == .max ? nil : frames.upperBound)
        let seeked = try source.seek(to: target, endingAt: innerEnd)
        started = true
        if seeked.reached < frames.lowerBound {
            // A seek past the end stops at the end: where it stopped is the true length, which a
            // header may misstate.
            throw ReverseAudioError.range(.rangePastEnd(path: name, frame: frames.lowerBound, isStart: true,
                                                 length: seeked.reached, sampleRate: format.sampleRate))
        }
        position = seeked.reached - frames.lowerBound
        return SeekedTo(required: frame, reached: position)
    }
}

extension PCMSource {
    /// The frames `frames` of this source, on a timeline of their own.
    ///
    /// ```swift
    /// let chorus = try AudioReader(url: song).range(441_000..<882_000)  // 10 s to 20 s at 44.1 kHz
    /// ```
    /// - Parameters:
    ///   - frames: the part, on this source's timeline; `Int64.max` as the upper bound for its end.
    ///   - name: what the frames come from, for messages.
    ///   - requiringWholeRange: a source that ends before the range does is an error (else the
    ///     range just ends early).
    public func range(_ frames: Range<Int64>, name: String = "source", requiringWholeRange: Bool = true) -> any PCMSource {
        RangeSource(self, frames: frames, name: name, requiringWholeRange: requiringWholeRange)
    }
}
