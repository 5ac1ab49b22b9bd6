/// One channel of another source, as a mono source: its samples copied as they are. Made by
/// ``PCMSource/channel(_:name:)``.
package final class ChannelSelector: PCMSource {
    private let source: any PCMSource
    private let channel: Int
    /// The frames' sample format, rate and channels.
    package let format: PCMFormat
    private var buffer: UnsafeMutableRawBufferPointer

    init(_ source: any PCMSource, channel: Int) {
        self.source = source
        self.channel = channel
        format = source.format.mono
        buffer = .allocate(byteCount: 0, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The frames it holds, when known before reading, and how that is known.
    package var length: PCMLength { source.length }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
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
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        try source.seek(to: frame, endingAt: end)
    }
}

extension PCMSource {
    /// Channel `index` of this source (from 0), as a mono source.
    /// - Parameters:
    ///   - index: the channel, from 0.
    ///   - name: what the frames come from, for messages.
    /// - Throws: ``InputError/channelOutOfRange(path:channel:channelCount:)``.
    public func channel(_ index: Int, name: String = "source") throws -> any PCMSource {
        guard index >= 0, index < format.channelCount else {
            throw ReverseAudioError.input(.channelOutOfRange(path: name, channel: index, channelCount: format.channelCount))
        }
        return ChannelSelector(self, channel: index)
    }
}
