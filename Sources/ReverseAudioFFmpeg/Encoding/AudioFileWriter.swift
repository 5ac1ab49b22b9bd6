import FFmpeg
import Foundation
import ReverseAudioCore

/// Writes interleaved PCM of any sample format to a file of any ``FileFormat`` (WAV, AIFF, CAF,
/// FLAC, M4A, MP3, ADTS AAC, Ogg Vorbis, Opus, WebM), through libavcodec's encoders and
/// libavformat's muxers: the library's file `PCMSink`.
///
/// The file is written under a temporary name beside `url` and published by ``finish()``;
/// ``cancel()`` (or releasing an unfinished writer) removes it, so no partial file is ever left
/// at `url`. A pipe or a device is written in place instead, never replaced. PCM into a
/// seekable file also takes frames at any position (``positioned``): a reversal writes each
/// block at its mirrored place.
///
/// ```swift
/// let source = try SampleConverter(AudioFileSource(url: input), sampleFormat: .s16)
/// let writer = try AudioFileWriter(url: output, format: source.format)   // by the extension
/// try transfer(source, to: writer)
/// ```
package final class AudioFileWriter: PCMSink, PositionedPCMSink {
    /// The finished file's location.
    package let url: URL
    /// The PCM the writer takes.
    package let format: PCMFormat
    /// The container and codec written.
    package let outputFormat: OutputFormat
    /// The codec actually used (for `.m4a` the automatic choice resolved): "pcm", "aac"…
    package let codec: String
    /// Frames handed over so far.
    package private(set) var framesWritten: Int64 = 0
    /// What the writer changes on the way into the file ("sample format u8 → s16: FLAC has no 8-bit samples").
    package let conversions: [String]
    /// The sample format the file holds: ``format``'s, or the wider one a lossless codec needs
    /// (8-bit into FLAC is 16-bit); nil for a lossy codec, which keeps no samples as such.
    package let storedSampleFormat: SampleFormat?

    /// What the writer takes from the input it converts, when there is one.
    package struct Input {
        /// The input's codec, in output terms (nil for one we do not write).
        let codec: String?
        let isLossless: Bool
        let bitRate: Int?
        /// Tags to copy into the output (title, artist…).
        let tags: [(key: String, value: String)]
        /// Chapters to write (frames of the output, and titles): a cut's, shifted to its start.
        package var chapters: [(start: Int64, end: Int64, title: String?)] = []
    }

    let output: OutputFile
    private let plan: EncoderPlan
    private let layout: ChannelLayout
    private let tags: [(key: String, value: String)]
    private let chapters: [(start: Int64, end: Int64, title: String?)]
    private var muxer: Muxer
    /// The encoder; nil when the samples go into the file as they are (little-endian PCM).
    private var stream: EncodingStream?
    private let packet: Packet
    private var dataStart: Int64 = 0
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
    package convenience init(url: URL, format: PCMFormat, outputFormat: OutputFormat? = nil, overwrite: Bool = false,
                            expectedFrames: Int64? = nil) throws {
        try self.init(url: url, format: format, outputFormat: outputFormat ?? OutputFormat.forFile(url), input: nil,
                      overwrite: overwrite, inputs: [], expectedFrames: expectedFrames)
    }

    /// Creates the writer for a file converted from `input`, which never names one of `inputs`.
    package init(url: URL, format: PCMFormat, outputFormat: OutputFormat, input: Input?, overwrite: Bool,
                 inputs: [URL], expectedFrames: Int64?) throws {
        self.url = url
        self.format = format
        self.outputFormat = outputFormat
        let path = url.displayPath
        plan = try EncoderPlan(format: format, outputFormat: outputFormat, source: input, path: path)
        codec = plan.codec.name
        conversions = plan.conversions
        storedSampleFormat = plan.storedSampleFormat
        layout = ChannelLayout(named: format.channelLayoutName, channelCount: format.channelCount)
        tags = input?.tags ?? []
        chapters = input?.chapters ?? []
        output = try OutputFile(url: url, overwrite: overwrite, inputs: inputs,
                                requiresSeekableFile: outputFormat.file.requiresSeekableFile)
        packet = try mappingFFmpegErrors(path: path) { try Packet() }
        do {
            muxer = try Muxer(path: output.temporaryURL.path, formatName: outputFormat.file.muxer, publishedPath: outputFormat.file.muxerName(forPublished: output.target.path))
        } catch {
            output.discard()
            throw ReverseAudioError.output(.cannotCreateOutput(path: path, reason: error.message))
        }
        do {
            try start(expectedFrames: expectedFrames)
        } catch {
            try? muxer.close()
            output.discard()
            throw error
        }
    }

    /// Adds the stream and writes the header.
    private func start(expectedFrames: Int64?) throws {
        do {
            let settings = Encoder.Settings(codecName: plan.encoderName, sampleType: plan.sampleType,
                                            sampleRate: format.sampleRate, channelLayout: layout,
                                            bitRate: plan.bitRate, bitsPerRawSample: plan.bitsPerRawSample)
            let encoding = try EncodingStream(muxer: muxer, settings: settings, inputType: format.sampleFormat.sampleType,
                                              path: url.displayPath)
            stream = plan.passesThrough ? nil : encoding
            let options = outputFormat.file.muxerOptions(format, plan.storedBytesPerSample * format.channelCount, expectedFrames)
            muxer.setMetadata(tags)
            try muxer.addChapters(chapters, sampleRate: format.sampleRate)
            try muxer.writeHeader(options: options)
        } catch {
            throw ReverseAudioError.output(.writeFailed(path: url.displayPath, reason: error.message))
        }
        dataStart = muxer.bytePosition
    }

    /// True when blocks can be written at any frame position (PCM into a seekable file).
    private var supportsPlacement: Bool { plan.storedBytesPerSample > 0 && output.isSeekable }

    /// This writer, when it takes frames at any position.
    package var positioned: (any PositionedPCMSink)? { supportsPlacement ? self : nil }

    /// Appends a block after everything written so far.
    /// - Throws: `SettingError.sampleBufferMismatch(reason:)` for a block of another format.
    package func append(_ block: SampleBuffer) throws {
        guard block.format.holdsSameFrames(as: format) else {
            throw ReverseAudioError.setting(.sampleBufferMismatch(reason: "a block of \(block.format) cannot go into \(url.displayPath), a file of \(format)"))
        }
        try block.bytes.withUnsafeBytes { try write($0, frames: block.frameCount, at: endFrame) }
    }

    /// Appends `chunk`'s frames after everything written so far.
    package func write(_ chunk: PCMChunk) throws {
        try write(chunk.bytes, frames: chunk.frameCount, at: endFrame)
    }

    /// Writes `frames` interleaved frames at frame index `frame`: out of order only into a
    /// ``positioned`` writer (a reversal writes the last block first); the file ends after the
    /// highest frame written.
    package func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
        guard frames > 0, let base = bytes.baseAddress else { return }
        guard frame == endFrame || supportsPlacement else {
            throw ReverseAudioError.output(.writeFailed(path: url.displayPath, reason: "\(codec) is written in order only"))
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
            throw ReverseAudioError.output(.writeFailed(path: url.displayPath, reason: error.message))
        }
        // Timestamps count frames in the order they are handed over: muxers only count with them.
        nextTimestamp += Int64(frames)
        framesWritten += Int64(frames)
        endFrame = max(endFrame, frame + Int64(frames))
    }

    /// Bytes of one frame in the file, for PCM (an s24 sample takes 3).
    private var storedBytesPerFrame: Int { plan.storedBytesPerSample * format.channelCount }

    /// True when the file is written under a temporary name (not into a pipe or a device): what
    /// was written can be taken back.
    package var canStartOver: Bool { output.isSeekable }

    /// Starts the file again, empty, for an output of `frames` frames (only where ``canStartOver``).
    package func startOver(expectingFrames frames: Int64) throws {
        try discardWrites(expectingFrames: frames)
    }

    /// Starts the file again, empty, for an output of `frames` frames.
    package func discardWrites(expectingFrames frames: Int64) throws {
        try? muxer.close()
        do {
            muxer = try Muxer(path: output.temporaryURL.path, formatName: outputFormat.file.muxer, publishedPath: outputFormat.file.muxerName(forPublished: output.target.path))
        } catch {
            throw ReverseAudioError.output(.writeFailed(path: url.displayPath, reason: error.message))
        }
        endFrame = 0
        nextTimestamp = 0
        framesWritten = 0
        try start(expectedFrames: frames)
    }

    /// Completes the file (encoder drained, header patched) and moves it into place.
    package func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        do {
            try stream?.finish()
            try muxer.finish(atByte: supportsPlacement ? dataStart + endFrame * Int64(storedBytesPerFrame) : nil)
        } catch {
            output.discard()
            throw ReverseAudioError.output(.writeFailed(path: url.displayPath, reason: error.message))
        }
        try output.commit()
    }

    /// Abandons the file: nothing is left at `url` or under the temporary name.
    package func cancel() {
        guard !isFinished else { return }
        isFinished = true
        try? muxer.close()
        output.discard()
    }

    deinit { cancel() }
}

extension AudioInput {
    /// What a writer converting this input keeps of it: its codec (to keep its bit rate), tags.
    package var writerInput: AudioFileWriter.Input { writerInput(overridingTags: []) }

    /// ``writerInput`` with `overrides` in place of the tags of the same names, and with the
    /// chapters of a cut of output frames `cut` (none without one).
    package func writerInput(overridingTags overrides: [(key: String, value: String)],
                             chaptersOf cut: Range<Int64>? = nil) -> AudioFileWriter.Input {
        AudioFileWriter.Input(codec: outputCodec, isLossless: !parameters.isLossy, bitRate: parameters.bitRate ?? demuxer.bitRate,
                              tags: tags(overriding: overrides), chapters: cut.map { chapters(within: $0) } ?? [])
    }

    /// The input's codec by the name an output format gives it, when it is one we write.
    package var outputCodec: String? {
        switch traits.family {
        case .pcm: return "pcm"
        case .flac: return "flac"
        case .alac: return "alac"
        case .aac: return "aac"
        case .mp3: return "mp3"
        case .opus: return "opus"
        case .vorbis: return "vorbis"
        default: return nil
        }
    }
}

/// Which encoder writes a PCM format into an output format, and with what settings, from the
/// format's and codec's descriptions (``FileFormat``, ``CodecFormat``).
///
/// Lossless outputs keep the input's sample format where the codec can hold it (24-bit stays
/// 24-bit, float WAV stays float); where it cannot, an exact widening is used and said
/// (8-bit into FLAC becomes 16-bit), and a loss is refused (float into FLAC).
struct EncoderPlan {
    let codec: CodecFormat
    /// FFmpeg's encoder name.
    let encoderName: String
    /// The sample type handed to the encoder (it converts to its own variant).
    let sampleType: SampleType
    let bitsPerRawSample: Int?
    let bitRate: Int?
    /// Bytes one sample takes in the file, for PCM (3 for 24-bit); 0 when not stored as such.
    let storedBytesPerSample: Int
    /// True when the samples are already in the file's byte layout (little-endian PCM).
    let passesThrough: Bool
    /// What changes on the way into the file.
    let conversions: [String]
    /// The sample format the file holds; nil for lossy codecs.
    let storedSampleFormat: SampleFormat?

    init(format: PCMFormat, outputFormat: OutputFormat, source: AudioFileWriter.Input?, path: String) throws {
        codec = outputFormat.resolvedCodec(inputIsLossless: source?.isLossless ?? true)
        let sample = format.sampleFormat
        encoderName = codec.encoder(sample)
        var conversions: [String] = []
        if let stores = codec.stores {
            guard let stored = stores[sample] else {
                throw ReverseAudioError.output(.sampleFormatNotStorable(path: path, codec: codec.name, sampleFormat: sample,
                                                                storable: SampleFormat.allCases.filter { stores[$0] != nil }))
            }
            if stored != sample {
                conversions.append("sample format \(sample) → \(stored): \(codec.name.uppercased()) has no \(sample.validBits)-bit samples (exact)")
            }
            storedSampleFormat = stored
            // 8-bit into FLAC or ALAC goes in as 16-bit (the widening said above).
            sampleType = stored.sampleType
            bitsPerRawSample = stored == .s24 ? 24 : nil
            bitRate = nil
        } else {
            storedSampleFormat = nil
            sampleType = sample.sampleType
            bitsPerRawSample = nil
            let sameCodec = source?.codec == codec.name
            bitRate = outputFormat.bitRate ?? (sameCodec ? source?.bitRate : nil) ?? codec.defaultBitRate(format)
        }
        passesThrough = codec.storesAsInMemory(sample)
        storedBytesPerSample = codec.name == "pcm" ? (sample == .s24 ? 3 : sample.bytesPerSample) : 0
        if let maximum = codec.maximumChannels, format.channelCount > maximum {
            throw ReverseAudioError.output(.tooManyChannels(path: path, codec: codec.name, channels: format.channelCount, maximum: maximum))
        }
        let rates = Encoder.supportedSampleRates(codecName: encoderName)
        if !rates.isEmpty, !rates.contains(format.sampleRate) {
            throw ReverseAudioError.output(.unsupportedSampleRate(path: path, codec: codec.name, sampleRate: format.sampleRate, supported: rates))
        }
        self.conversions = conversions
    }
}
