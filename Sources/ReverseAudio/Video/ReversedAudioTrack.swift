import FFmpeg
import Foundation

/// The input's audio reversed as one continuous stream and encoded once, for a reversed video.
///
/// The reversal is the library's own for audio files: one continuous forward decode whose
/// blocks go to their mirrored places in an unnamed temporary file (flat memory, no seams, and
/// equal to `ffmpeg -af areverse`). The file is then read forwards as the pictures advance. For
/// a boomerang it is first read backwards, block by block, each block reversed again: that is
/// the forward audio, exactly, without decoding twice.
final class ReversedAudioTrack: VideoAudioTrack {
    let format: PCMFormat
    /// Frames of the reversed audio (one pass).
    let frames: Int64
    let summary: String
    let warnings: [String]
    private let store: TemporaryPCMFile
    private let layout: ChannelLayout
    private let settings: Encoder.Settings
    private let inputType: SampleType
    private let boomerang: Bool
    private let path: String
    private var stream: EncodingStream?
    private var written: Int64 = 0

    /// Frames written per step.
    private static let chunkFrames = 8192

    /// Reverses `source`'s audio into a temporary file in `folder`; nil when it holds no samples.
    static func prepare(_ source: AudioSource, codec: VideoOptions.AudioCodec, bitRate: Int?, boomerang: Bool,
                        folder: URL, output: URL, isCancelled: @escaping @Sendable () -> Bool,
                        progress: ProgressHandler?) throws -> ReversedAudioTrack? {
        let native = PCMDecoder.nativeFormat(of: source.decoder)
        let sampleFormat = decodedFormat(for: codec, native: native)
        let (count, counted) = try FrameCounter.count(source, isCancelled: isCancelled)
        let reversal = MirroredReversal<TemporaryPCMFile>(
            blockFrames: nil, isCancelled: isCancelled,
            makeDecoder: { try PCMDecoder(source: $0, channels: .all, sampleFormat: sampleFormat, isCancelled: isCancelled) },
            makeSink: { decoder, _ in try TemporaryPCMFile(in: folder, bytesPerFrame: decoder.format.bytesPerFrame) },
            discard: { _ in })  // a temporary file vanishes when released
        let outcome = try reversal.run(counted, predicted: count.prediction, progress: progress)
        guard let store = outcome.sink, outcome.frames > 0 else { return nil }
        // AAC keeps an AAC input's rate; otherwise 96 kb/s a channel (192 for stereo), 64 beyond two.
        let channels = outcome.decoder.format.channelCount
        let sourceRate = source.parameters.codecName == "aac" ? source.parameters.bitRate : nil
        let aacRate = bitRate ?? sourceRate ?? (channels <= 2 ? 96_000 * channels : 64_000 * channels)
        return try ReversedAudioTrack(store: store, frames: outcome.frames, decoder: outcome.decoder, codec: codec,
                                      native: native, bitRate: aacRate, boomerang: boomerang, path: output.displayPath)
    }

    private init(store: TemporaryPCMFile, frames: Int64, decoder: PCMDecoder, codec: VideoOptions.AudioCodec,
                 native: SampleFormat, bitRate: Int, boomerang: Bool, path: String) throws {
        self.store = store
        self.frames = frames
        self.boomerang = boomerang
        self.path = path
        format = decoder.format
        layout = decoder.outputChannelLayout
        inputType = PCMDecoder.sampleType(of: format.sampleFormat)
        let (encoderName, bits) = ReversedAudioTrack.encoder(for: codec, format: format.sampleFormat)
        let rate = codec == .aac ? bitRate : nil
        settings = Encoder.Settings(codecName: encoderName, sampleType: encoderName == "aac" ? .float : inputType,
                                    sampleRate: format.sampleRate, channelLayout: layout, bitRate: rate, bitsPerRawSample: bits)
        var text = "reversed\(boomerang ? " (after the forward audio)" : ""): \(codec.rawValue.uppercased())"
        if let rate { text += " \(rate / 1000) kb/s" }
        text += ", \(format.channelCount) channel\(format.channelCount == 1 ? "" : "s"), \(format.sampleRate) Hz"
        if native != format.sampleFormat { text += ", sample format \(native) → \(format.sampleFormat)" }
        summary = text
        warnings = decoder.warnings
    }

    /// The sample format to decode to: what the codec holds without loss, the decoder's own
    /// where it can (PCM keeps it exactly as `-af areverse` decodes it).
    private static func decodedFormat(for codec: VideoOptions.AudioCodec, native: SampleFormat) -> SampleFormat {
        switch codec {
        case .aac: return .f32
        case .pcm: return native
        case .alac, .flac:
            switch native {
            case .s16, .s24: return native
            case .s32: return .s24
            case .u8, .f32, .f64: return .s16
            }
        }
    }

    private static func encoder(for codec: VideoOptions.AudioCodec, format: SampleFormat) -> (String, Int?) {
        switch codec {
        case .aac: return ("aac", nil)
        case .alac, .flac: return (codec.rawValue, format == .s24 ? 24 : nil)
        case .pcm:
            switch format {
            case .u8: return ("pcm_u8", nil)
            case .s16: return ("pcm_s16le", nil)
            case .s24: return ("pcm_s24le", 24)
            case .s32: return ("pcm_s32le", nil)
            case .f32: return ("pcm_f32le", nil)
            case .f64: return ("pcm_f64le", nil)
            }
        }
    }

    /// Frames in the output: the reversal, or the forward audio and then the reversal.
    var totalFrames: Int64 { boomerang ? 2 * frames : frames }

    func attach(to muxer: Muxer) throws {
        stream = try writing { try EncodingStream(muxer: muxer, settings: settings, inputType: inputType, path: path) }
    }

    func advance(through seconds: Double) throws {
        let target = min(totalFrames, Int64((seconds * Double(format.sampleRate)).rounded(.up)))
        try write(upTo: target)
    }

    func finish() throws {
        try write(upTo: totalFrames)
        try writing { try stream?.finish() }
    }

    private func write(upTo target: Int64) throws {
        guard let stream else { return }
        let frameBytes = format.bytesPerFrame
        while written < target {
            let count = Int(min(Int64(ReversedAudioTrack.chunkFrames), target - written,
                                written < frames && boomerang ? frames - written : target - written))
            var bytes: [UInt8]
            if boomerang && written < frames {
                // Forward audio: the reversed file read from its end, each block reversed back.
                let stored = try store.read(frames: count, at: frames - written - Int64(count))
                bytes = [UInt8](repeating: 0, count: stored.count)
                stored.withUnsafeBytes { from in
                    bytes.withUnsafeMutableBytes { to in
                        FrameReversal.copyReversed(from.baseAddress!, to: to.baseAddress!, frames: count, frameBytes: frameBytes)
                    }
                }
            } else {
                bytes = try store.read(frames: count, at: written - (boomerang ? frames : 0))
            }
            try bytes.withUnsafeBytes { buffer in try writing { try stream.append(buffer.baseAddress!, frames: count) } }
            written += Int64(count)
        }
    }

    private func writing<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as FFmpegError {
            throw ReverseAudioError.writeFailed(path: path, reason: "audio: \(error.operation) failed (\(error.message))")
        }
    }
}
