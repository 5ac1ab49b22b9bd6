import FFmpeg
import Foundation

/// Writes interleaved PCM of any sample format to a WAV, AIFF, CAF, FLAC, M4A (ALAC or AAC),
/// MP3 or ADTS AAC file, through libavcodec's encoders and libavformat's muxers.
///
/// The file is written under a temporary name beside `url` and published by ``finish()``;
/// ``cancel()`` (or releasing an unfinished writer) removes it, so no partial file is ever left
/// at `url`. A pipe or a device is written in place instead, never replaced.
///
/// ```swift
/// let writer = try AudioFileWriter(url: output, format: decoder.format)   // by the extension
/// while let block = try decoder.read() { try writer.append(block) }
/// try writer.finish()
/// ```
public final class AudioFileWriter {
    /// The finished file's location.
    public let url: URL
    /// The PCM the writer takes.
    public let format: PCMFormat
    /// The container and codec written.
    public let outputFormat: OutputFormat
    /// The codec actually used (for `.m4a` the automatic choice resolved).
    public let codec: OutputFormat.Codec
    /// Frames handed over so far.
    public private(set) var framesWritten: Int64 = 0
    /// What the writer changes on the way into the file ("sample format u8 → s16: FLAC has no 8-bit samples").
    public let conversions: [String]
    /// The sample format the file holds: ``format``'s, or the wider one a lossless codec needs
    /// (8-bit into FLAC is 16-bit); nil for a lossy codec, which keeps no samples as such.
    public let storedSampleFormat: SampleFormat?

    let output: OutputFile
    private let muxer: Muxer
    /// The encoder; nil when the samples go into the file as they are (little-endian PCM).
    private let stream: EncodingStream?
    private let packet: Packet
    private let dataStart: Int64
    /// Bytes of one frame in the file, for PCM (an s24 sample takes 3).
    private let storedBytesPerFrame: Int
    private var endFrame: Int64 = 0
    private var nextTimestamp: Int64 = 0
    private var isFinished = false

    /// Creates the writer and writes the header.
    /// - Parameters:
    ///   - url: the file to write.
    ///   - format: the PCM the writer takes.
    ///   - outputFormat: the container and codec; nil picks them from `url`'s extension.
    ///   - overwrite: replace an existing file at `url` (only when ``finish()`` succeeds).
    ///   - expectedFrames: the length if known; beyond 4 GiB of data a WAV becomes RF64.
    public convenience init(url: URL, format: PCMFormat, outputFormat: OutputFormat? = nil, overwrite: Bool = false,
                            expectedFrames: Int64? = nil) throws {
        try self.init(url: url, format: format, outputFormat: outputFormat ?? OutputFormat.forFile(url),
                      channelLayout: ChannelLayout(named: format.channelLayoutName, channelCount: format.channelCount),
                      source: nil, overwrite: overwrite, inputs: [], expectedFrames: expectedFrames)
    }

    /// What the writer needs to know of the input when there is one.
    struct SourceDescription {
        let codecName: String
        let isLossless: Bool
        let bitRate: Int?
        /// Tags to copy into the output (title, artist…).
        let tags: [(key: String, value: String)]
    }

    init(url: URL, format: PCMFormat, outputFormat: OutputFormat, channelLayout: ChannelLayout,
         source: SourceDescription?, overwrite: Bool, inputs: [URL], expectedFrames: Int64?) throws {
        self.url = url
        self.format = format
        self.outputFormat = outputFormat
        let path = url.displayPath
        let plan = try EncoderPlan(format: format, outputFormat: outputFormat, source: source, path: path)
        codec = plan.codec
        conversions = plan.conversions
        storedSampleFormat = plan.storedSampleFormat
        output = try OutputFile(url: url, overwrite: overwrite, inputs: inputs,
                                requiresSeekableFile: outputFormat.container.requiresSeekableFile)
        do {
            muxer = try Muxer(path: output.temporaryURL.path, formatName: outputFormat.container.muxerName)
        } catch {
            output.discard()
            throw ReverseAudioError.cannotCreateOutput(path: path, reason: error.message)
        }
        do {
            packet = try Packet()
            let settings = Encoder.Settings(codecName: plan.encoderName, sampleType: plan.sampleType,
                                            sampleRate: format.sampleRate, channelLayout: channelLayout,
                                            bitRate: plan.bitRate, bitsPerRawSample: plan.bitsPerRawSample)
            let encoding = try EncodingStream(muxer: muxer, settings: settings,
                                              inputType: PCMDecoder.sampleType(of: format.sampleFormat), path: path)
            stream = plan.passesThrough ? nil : encoding
            let frameBytes = plan.storedBytesPerSample * format.channelCount
            storedBytesPerFrame = frameBytes
            var options: [String: String] = [:]
            if outputFormat.container == .wav {
                // A plain RIFF header whenever the data surely fits in 4 GiB; RF64 when it may not.
                let limit: Int64 = 0xFFFF_FFFF - (1 << 20)
                let mayOutgrowRIFF = expectedFrames.map { $0 * Int64(frameBytes) > limit } ?? true
                if mayOutgrowRIFF { options["rf64"] = "auto" }
            }
            muxer.setMetadata(source?.tags ?? [])
            try muxer.writeHeader(options: options)
        } catch {
            try? muxer.close()
            output.discard()
            throw ReverseAudioError.writeFailed(path: path, reason: error.message)
        }
        dataStart = muxer.bytePosition
    }

    /// True when blocks can be written at any frame position (PCM into a seekable file): a
    /// reversal then writes each block at its mirrored place with no temporary file.
    var supportsPlacement: Bool { codec == .pcm && output.isSeekable }

    /// Appends a block after everything written so far.
    public func append(_ block: SampleBuffer) throws {
        guard block.format.sampleFormat == format.sampleFormat, block.channelCount == format.channelCount else {
            throw ReverseAudioError.invalidOption(
                "\(url.displayPath): a block of \(block.channelCount) channels of \(block.format.sampleFormat) cannot go into a file of \(format.channelCount) channels of \(format.sampleFormat)")
        }
        try block.bytes.withUnsafeBytes { try append($0, frames: block.frameCount) }
    }

    /// Appends `frames` interleaved frames after everything written so far.
    func append(_ bytes: UnsafeRawBufferPointer, frames: Int) throws {
        try write(bytes, frames: frames, at: endFrame)
    }

    /// Writes `frames` interleaved frames at frame index `frame`. Out of order only when
    /// ``supportsPlacement`` (a reversal writes the last block first); the file ends after the
    /// highest frame written.
    func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
        guard frames > 0, let base = bytes.baseAddress else { return }
        guard frame == endFrame || supportsPlacement else {
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: "\(codec.rawValue) is written in order only")
        }
        do {
            if supportsPlacement {
                let offset = dataStart + frame * Int64(storedBytesPerFrame)
                if muxer.bytePosition != offset { try muxer.seek(toByte: offset) }
            }
            if let stream {
                try stream.append(base, frames: frames)
            } else {
                try muxer.writePCM(base, byteCount: frames * format.bytesPerFrame, frames: frames,
                                   timestamp: nextTimestamp, using: packet)
            }
        } catch {
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: error.message)
        }
        // Timestamps count frames in the order they are handed over: muxers only count with them.
        nextTimestamp += Int64(frames)
        framesWritten += Int64(frames)
        endFrame = max(endFrame, frame + Int64(frames))
    }

    /// Completes the file (encoder drained, header patched) and moves it into place.
    public func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        do {
            try stream?.finish()
            try muxer.finish(atByte: codec == .pcm && output.isSeekable ? dataStart + endFrame * Int64(storedBytesPerFrame) : nil)
        } catch {
            output.discard()
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: error.message)
        }
        try output.commit()
    }

    /// Abandons the file: nothing is left at `url` or under the temporary name.
    public func cancel() {
        guard !isFinished else { return }
        isFinished = true
        try? muxer.close()
        output.discard()
    }

    deinit { cancel() }
}

extension AudioFileWriter: ReversedFrameSink {}
