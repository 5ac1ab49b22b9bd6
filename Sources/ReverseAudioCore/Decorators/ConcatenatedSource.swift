/// Sources end to end: every frame of the first, then of the next (rodio's `chain`). They must
/// hold frames of one format (a `SampleConverter` brings one to another's).
public final class ConcatenatedSource: PCMSource {
    /// The sources, in order.
    public let sources: [any PCMSource]
    /// The frames' sample format, rate and channels.
    public let format: PCMFormat
    private var current = 0
    /// The index of the next frame read.
    public private(set) var position: Int64 = 0

    /// `sources` end to end.
    /// - Throws: ``ReverseAudioError/sampleBufferMismatch(reason:)`` when they do not hold
    ///   frames of one format, or there are none.
    public init(_ sources: [any PCMSource]) throws {
        guard let first = sources.first else {
            throw ReverseAudioError.sampleBufferMismatch(reason: "nothing to put end to end")
        }
        for source in sources.dropFirst() where !source.format.holdsSameFrames(as: first.format) {
            throw ReverseAudioError.sampleBufferMismatch(reason: "\(source.format) cannot follow \(first.format)")
        }
        self.sources = sources
        format = first.format
    }

    /// The sum of the sources' lengths, when every one is known.
    public var length: PCMLength {
        var total: Int64 = 0
        for source in sources {
            guard let frames = source.length.frames else { return .unknown }
            total += frames
        }
        return PCMLength(frames: total, source: sources.allSatisfy { $0.length.source == .range } ? .range : .packets)
    }

    /// Problems met so far that did not stop reading.
    public var warnings: [ReverseAudioWarning] { sources.flatMap(\.warnings) }
    /// The natural block of what it reads (a decoded packet's frames).
    public var blockFrames: Int? { sources.first?.blockFrames }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        while current < sources.count {
            if let chunk = try sources[current].read(maximumFrames: maximumFrames) {
                defer { position += Int64(chunk.frameCount) }
                return chunk.moved(to: position)
            }
            current += 1
        }
        return nil
    }

    /// Seeks into the source that holds `frame`; needs every earlier source's length.
    @discardableResult
    public func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        var start: Int64 = 0
        for (index, source) in sources.enumerated() {
            guard let frames = source.length.frames else {
                throw ReverseAudioError.cannotSeek(path: source.name, frame: frame, reason: "its length is unknown")
            }
            if frame < start + frames || index == sources.count - 1 {
                let seeked = try source.seek(to: frame - start, endingAt: nil)
                current = index
                position = start + seeked.reached
                return SeekedTo(required: frame, reached: position)
            }
            start += frames
        }
        return SeekedTo(required: frame, reached: 0)
    }
}
