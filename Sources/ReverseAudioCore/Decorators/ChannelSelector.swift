/// One channel of another source, as a mono source: its samples copied as they are.
public final class ChannelSelector: PCMSource {
    /// The source the channel is taken from.
    public let source: any PCMSource
    /// The channel taken, from 0.
    public let channel: Int
    /// The frames' sample format, rate and channels.
    public let format: PCMFormat
    private var buffer: UnsafeMutableRawBufferPointer

    /// Channel `channel` of `source`.
    /// - Throws: ``ReverseAudioError/channelOutOfRange(path:channel:channelCount:)``.
    public init(_ source: any PCMSource, channel: Int) throws {
        guard channel >= 0, channel < source.format.channelCount else {
            throw ReverseAudioError.channelOutOfRange(path: source.name, channel: channel, channelCount: source.format.channelCount)
        }
        self.source = source
        self.channel = channel
        format = source.format.mono
        buffer = .allocate(byteCount: 0, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The frames it holds, when known before reading, and how that is known.
    public var length: PCMLength { source.length }
    /// The index of the next frame read.
    public var position: Int64 { source.position }
    /// Problems met so far that did not stop reading.
    public var warnings: [ReverseAudioWarning] { source.warnings }
    /// The natural block of what it reads (a decoded packet's frames).
    public var blockFrames: Int? { source.blockFrames }
    /// The file the frames come from, for messages.
    public var name: String { source.name }

    /// The same channel of an independent reader of the source, when it has one.
    public func independentReader() throws -> (any PCMSource)? {
        guard let inner = try source.independentReader() else { return nil }
        return try ChannelSelector(inner, channel: channel)
    }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        guard let chunk = try source.read(maximumFrames: maximumFrames) else { return nil }
        let sampleBytes = format.sampleFormat.bytesPerSample
        let frameBytes = source.format.bytesPerFrame
        if buffer.count < chunk.frameCount * sampleBytes {
            buffer.deallocate()
            buffer = .allocate(byteCount: max(chunk.frameCount * sampleBytes, buffer.count * 2), alignment: 16)
        }
        var from = chunk.bytes.baseAddress! + channel * sampleBytes
        var to = buffer.baseAddress!
        for _ in 0..<chunk.frameCount {
            to.copyMemory(from: from, byteCount: sampleBytes)
            from += frameBytes
            to += sampleBytes
        }
        return PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<(chunk.frameCount * sampleBytes)]),
                        frameCount: chunk.frameCount, position: chunk.position)
    }

    /// Moves so the next frame read is `frame` (see ``PCMSource/seek(to:endingAt:)``).
    @discardableResult
    public func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        try source.seek(to: frame, endingAt: end)
    }
}
