/// A part of another source: its frames `[lowerBound, upperBound)`, on a timeline of its own
/// that starts at 0 (rodio's `take` and `skip` in one).
///
/// The first read seeks the source to the range's start. A range that starts at or after the
/// source's end, or (when the whole range is required) ends past it, fails with
/// ``ReverseAudioError/rangePastEnd(path:frame:isStart:length:sampleRate:)`` naming the true
/// length, which only reading may tell (a header can misstate it).
public final class RangeSource: PCMSource {
    /// The source the range is cut from.
    public let source: any PCMSource
    /// The frames taken, on the source's timeline; an upper bound of `Int64.max` means its end.
    public let frames: Range<Int64>
    /// Fail when the source ends before the range does (else the range just ends early).
    public let requiresWholeRange: Bool
    private var started = false
    /// The index of the next frame read.
    public private(set) var position: Int64 = 0

    /// The frames `frames` of `source`.
    /// - Parameters:
    ///   - source: the source to cut.
    ///   - frames: the part, on `source`'s timeline; `Int64.max` as the upper bound for its end.
    ///   - requiringWholeRange: a source that ends before the range does is an error.
    public init(_ source: any PCMSource, frames: Range<Int64>, requiringWholeRange: Bool = true) {
        self.source = source
        self.frames = frames
        requiresWholeRange = requiringWholeRange
    }

    /// The frames' sample format, rate and channels.
    public var format: PCMFormat { source.format }
    /// The natural block of what it reads (a decoded packet's frames).
    public var blockFrames: Int? { source.blockFrames }
    /// The file the frames come from, for messages.
    public var name: String { source.name }
    /// Problems met so far that did not stop reading.
    public var warnings: [ReverseAudioWarning] { source.warnings }

    /// The same range of an independent reader of the source, when it has one.
    public func independentReader() throws -> (any PCMSource)? {
        guard let inner = try source.independentReader() else { return nil }
        return RangeSource(inner, frames: frames, requiringWholeRange: requiresWholeRange)
    }

    /// The range's length when its end is given, else what the source holds after its start.
    public var length: PCMLength {
        if frames.upperBound != .max { return PCMLength(frames: Int64(frames.count), source: .range) }
        let inner = source.length
        return PCMLength(frames: inner.frames.map { max(0, $0 - frames.lowerBound) }, source: inner.source)
    }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        if !started { try seek(to: 0) }
        let remaining = frames.upperBound == .max ? Int64.max : Int64(frames.count) - position
        guard remaining > 0 else { return nil }
        guard let chunk = try source.read(maximumFrames: Int(min(Int64(maximumFrames), remaining))) else {
            guard requiresWholeRange else { return nil }
            if position == 0 && frames.lowerBound > 0 {
                // The start is the source's end: nothing of the range is there.
                throw ReverseAudioError.rangePastEnd(path: name, frame: frames.lowerBound, isStart: true,
                                                     length: source.position, sampleRate: format.sampleRate)
            }
            if frames.upperBound != .max {
                throw ReverseAudioError.rangePastEnd(path: name, frame: frames.upperBound, isStart: false,
                                                     length: source.position, sampleRate: format.sampleRate)
            }
            return nil
        }
        defer { position += Int64(chunk.frameCount) }
        return chunk.moved(to: position)
    }

    /// Moves so the next frame read is `frame` (see ``PCMSource/seek(to:endingAt:)``).
    @discardableResult
    public func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        let target = frames.lowerBound + max(frame, 0)
        let innerEnd = end.map { frames.lowerBound + $0 } ?? (frames.upperBound == .max ? nil : frames.upperBound)
        let seeked = try source.seek(to: target, endingAt: innerEnd)
        started = true
        if seeked.reached < frames.lowerBound {
            throw ReverseAudioError.rangePastEnd(path: name, frame: frames.lowerBound, isStart: true,
                                                 length: source.length.frames ?? seeked.reached, sampleRate: format.sampleRate)
        }
        position = seeked.reached - frames.lowerBound
        return SeekedTo(required: frame, reached: position)
    }
}
