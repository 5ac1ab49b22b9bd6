import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

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
    let warnings: [ReverseAudioWarning]
    private let reversal: ReversedSource
    private let layout: ChannelLayout
    private let settings: Encoder.Settings
    private let inputType: SampleType
    private let boomerang: Bool
    private let path: String
    private var stream: EncodingStream?
    private var written: Int64 = 0
    private var turned = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)

    /// Frames written per step.
    private static let chunkFrames = 8192

    /// Reverses `url`'s audio into a temporary file in `folder`; nil when it holds no samples.
    static func prepare(_ url: URL, codec: VideoOptions.AudioCodec, bitRate: Int?, boomerang: Bool,
                        folder: URL, output: URL, cancellation: CancellationFlag,
                        progress: ProgressHandler?) throws -> ReversedAudioTrack? {
        let file = try AudioFileSource(url: url, cancellation: cancellation, plan: .lengthFirst)
        let native = file.sourceSampleFormat
        let chain = try AudioChain(file: file, recipe: ChainRecipe(sampleFormat: decodedFormat(for: codec, native: native), reversed: true))
        let scheduler = Scheduler(threads: 1, cancellation: cancellation, temporaryFolder: folder)
        let (input, _) = try chain.job(threads: 1, scheduler: scheduler)
        let reversal = scheduler.reversal(of: input, progress: progress)
        try reversal.seek(to: 0, endingAt: nil)
        let source = chain.source
        guard let frames = reversal.length.frames, frames > 0 else { return nil }
        // AAC keeps an AAC input's rate; otherwise 96 kb/s a channel (192 for stereo), 64 beyond two.
        let channels = source.format.channelCount
        // The audio stream's own rate: the container's total (AudioInfo.bitRate) counts the
        // pictures too (3 Mb/s for a 720p clip, which made the AAC encoder take 7× its time).
        let sourceRate = file.info.codec == CodecFormat.aac.encoder(.f32)
            ? file.openedInput.parameters.bitRate : nil
        let aacRate = bitRate ?? sourceRate ?? (channels <= 2 ? 96_000 * channels : 64_000 * channels)
        return try ReversedAudioTrack(reversal: reversal, warnings: chain.warnings, frames: frames, codec: codec, native: native,
                                      bitRate: aacRate, boomerang: boomerang, path: output.displayPath)
    }

    private init(reversal: ReversedSource, warnings: [ReverseAudioWarning], frames: Int64, codec: VideoOptions.AudioCodec,
                 native: SampleFormat,
                 bitRate: Int, boomerang: Bool, path: String) throws {
        self.reversal = reversal
        self.frames = frames
        self.boomerang = boomerang
        self.path = path
        format = reversal.format
        layout = ChannelLayout(named: format.channelLayoutName, channelCount: format.channelCount)
        inputType = format.sampleFormat.sampleType
        let (encoderName, bits) = ReversedAudioTrack.encoder(for: codec, format: format.sampleFormat)
        let rate = codec == .aac ? bitRate : nil
        settings = Encoder.Settings(codecName: encoderName, sampleType: codec == .aac ? .float : inputType,
                                    sampleRate: format.sampleRate, channelLayout: layout, bitRate: rate, bitsPerRawSample: bits)
        var text = "reversed\(boomerang ? " (after the forward audio)" : ""): \(codec.rawValue.uppercased())"
        if let rate { text += " \(rate / 1000) kb/s" }
        text += ", \(format.channelCount) channel\(format.channelCount == 1 ? "" : "s"), \(format.sampleRate) Hz"
        if native != format.sampleFormat { text += ", sample format \(native) → \(format.sampleFormat)" }
        summary = text
        self.warnings = warnings
    }

    deinit { turned.deallocate() }

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
        let bits = format == .s24 ? 24 : nil
        switch codec {
        case .aac: return (CodecFormat.aac.encoder(format), nil)
        case .alac: return (CodecFormat.alac.encoder(format), bits)
        case .flac: return (CodecFormat.flac.encoder(format), bits)
        case .pcm: return (CodecFormat.pcm().encoder(format), bits)
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
            let forwards = boomerang && written < frames
            let count = Int(min(Int64(ReversedAudioTrack.chunkFrames), target - written, forwards ? frames - written : .max))
            // Forward audio: the reversal read from its end, each block reversed back.
            try reversal.seek(to: forwards ? frames - written - Int64(count) : written - (boomerang ? frames : 0), endingAt: nil)
            var filled = 0
            if turned.count < count * frameBytes {
                turned.deallocate()
                turned = .allocate(byteCount: count * frameBytes, alignment: 16)
            }
            while filled < count, let chunk = try reversal.read(maximumFrames: count - filled) {
                let destination = turned.baseAddress! + (forwards ? (count - filled - chunk.frameCount) : filled) * frameBytes
                if forwards {
                    FrameReversal.copyReversed(chunk.bytes.baseAddress!, to: destination, frames: chunk.frameCount, frameBytes: frameBytes)
                } else {
                    destination.copyMemory(from: chunk.bytes.baseAddress!, byteCount: chunk.bytes.count)
                }
                filled += chunk.frameCount
            }
            guard filled == count else {
                throw ReverseAudioError.output(.writeFailed(path: path, reason: "the reversed audio ended early"))
            }
            try writing { try stream.append(turned.baseAddress!, frames: count) }
            written += Int64(count)
        }
    }

    private func writing<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as FFmpegError {
            throw ReverseAudioError.output(.writeFailed(path: path, reason: "audio: \(error.operation) failed (\(error.message))"))
        }
    }
}
