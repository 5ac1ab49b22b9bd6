/// A block of interleaved PCM that carries its format: the seed's `CMSampleBuffer`, in any
/// sample format.
public struct SampleBuffer: Sendable, Equatable {
    /// The samples' format, rate and channels.
    public let format: PCMFormat
    /// Interleaved samples as bytes in the machine's byte order: `frameCount × format.bytesPerFrame`.
    public let bytes: [UInt8]
    /// Index of this block's first frame within its stream (the decode, or the reversed output).
    public let position: Int64

    /// - Throws: ``SettingError/sampleBufferMismatch(reason:)`` unless `bytes` holds whole frames.
    package init(bytes: [UInt8], format: PCMFormat, position: Int64) throws {
        guard format.channelCount > 0, bytes.count % format.bytesPerFrame == 0 else {
            throw ReverseAudioError.setting(.sampleBufferMismatch(
                reason: "it must hold whole frames of \(format.bytesPerFrame) bytes, not \(bytes.count) bytes"))
        }
        self.format = format
        self.bytes = bytes
        self.position = position
    }

    /// A block of signed 16-bit samples.
    /// - Throws: ``SettingError/sampleBufferMismatch(reason:)`` unless `samples` holds whole frames.
    package init(samples: [Int16], channelCount: Int, sampleRate: Int, position: Int64) throws {
        let format = PCMFormat(sampleFormat: .s16, sampleRate: sampleRate, channelCount: channelCount)
        try self.init(bytes: samples.withUnsafeBytes { Array($0) }, format: format, position: position)
    }

    /// A copy of `chunk`'s frames, which are in `format`.
    package init(_ chunk: PCMChunk, format: PCMFormat) {
        self.init(owning: Array(chunk.bytes), format: format, position: chunk.position)
    }

    /// A block over `bytes`, known to hold whole frames of `format`.
    init(owning bytes: [UInt8], format: PCMFormat, position: Int64) {
        self.format = format
        self.bytes = bytes
        self.position = position
    }

    /// Frames (one sample per channel) in this block.
    public var frameCount: Int { bytes.count / format.bytesPerFrame }
    /// Channels per frame.
    package var channelCount: Int { format.channelCount }
    /// Frames per second.
    package var sampleRate: Int { format.sampleRate }
    /// This block's length in seconds.
    package var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    /// The interleaved samples of an `s16` block; empty for other formats (read those with `values(as:)`).
    public var samples: [Int16] { (try? values(as: Int16.self)) ?? [] }

    /// The interleaved samples as `type`, which must match the format: `UInt8` for u8, `Int16`
    /// for s16, `Int32` for s24 and s32, `Float` for f32, `Double` for f64.
    /// - Throws: ``SettingError/sampleBufferMismatch(reason:)`` when `type` does not match.
    public func values<Sample: BinaryInteger & Sendable>(as type: Sample.Type) throws -> [Sample] {
        try checkSize(MemoryLayout<Sample>.size, isFloat: false)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Sample.self)) }
    }

    /// The interleaved samples of an f32 or f64 block.
    public func values<Sample: BinaryFloatingPoint & Sendable>(as type: Sample.Type) throws -> [Sample] {
        try checkSize(MemoryLayout<Sample>.size, isFloat: true)
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Sample.self)) }
    }

    /// The samples of one channel of an `s16` block.
    package func channel(_ index: Int) throws -> [Int16] {
        guard index >= 0 && index < channelCount else {
            throw ReverseAudioError.setting(.sampleBufferMismatch(reason: "channel \(index) out of range (0..<\(channelCount))"))
        }
        let all = try values(as: Int16.self)
        return stride(from: index, to: all.count, by: channelCount).map { all[$0] }
    }

    private func checkSize(_ size: Int, isFloat: Bool) throws {
        guard size == format.sampleFormat.bytesPerSample, isFloat == format.sampleFormat.isFloat else {
            throw ReverseAudioError.setting(.sampleBufferMismatch(reason: "a \(format.sampleFormat) buffer cannot be read as \(size)-byte \(isFloat ? "floats" : "integers")"))
        }
    }
}

extension PCMSource {
    /// The next `frames` frames as an owned block (fewer only at the end), positioned on the
    /// source's timeline; nil at the end of the source.
    package func readBlock(frames: Int) throws -> SampleBuffer? {
        var start: Int64?
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * format.bytesPerFrame)
        var count = 0
        while count < frames, let chunk = try read(maximumFrames: frames - count) {
            if start == nil { start = chunk.position }
            bytes.append(contentsOf: chunk.bytes)
            count += chunk.frameCount
        }
        guard count > 0, let start else { return nil }
        return SampleBuffer(owning: bytes, format: format, position: start)
    }
}
