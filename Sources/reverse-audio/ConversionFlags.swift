import ArgumentParser
import Foundation
import ReverseAudio

/// The options `convert` and `reverse` share.
struct ConversionFlags: ParsableArguments {
    @Option(help: "Channels to keep: all, first, mix (all mixed to one, as ffmpeg -ac 1) or a channel number from 0.")
    var channels: ChannelSelection = .all

    @Option(help: "Sample format written: native (the input's own), s16 (default), s24, s32, f32 or f64.")
    var sampleFormat: SampleFormatArgument = .s16

    @Option(help: "Sample rate written, in Hz (swresample converts, as ffmpeg -ar); default: the input's.")
    var sampleRate: Int?

    @Option(help: "Output file format when the name does not say it: wav, aiff, caf, flac, m4a, mp3 or aac.")
    var format: String?

    @Option(help: "Codec inside the output: pcm, flac, alac, aac or mp3 (e.g. aac for .m4a from a lossless input).")
    var codec: OutputFormat.Codec?

    @Option(help: "Bit rate of a lossy output, in bits per second or with k (192k); default: the input's for the same codec, else 192k.")
    var bitrate: BitRate?

    @OptionGroup var range: RangeFlags

    @Option(help: "Frames per written block (default: the first decoded buffer's frame count).")
    var blockFrames: Int?

    @Flag(name: .customShort("y"), help: "Overwrite existing outputs (never the input).")
    var overwrite = false

    @Option(help: "Progress on standard error: auto (a bar on a terminal), bar, json or none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Explain what was done, and show FFmpeg's own warnings.")
    var verbose = false

    func validate() throws {
        if let blockFrames, blockFrames < 1 { throw ValidationError("--block-frames must be at least 1") }
        if let sampleRate, sampleRate < 1 { throw ValidationError("--sample-rate must be a positive number of Hz") }
        if let format { try Self.validateFormat(format, codec: codec, bitRate: bitrate) }
    }

    /// Fails with a usage error when `name` is not a format we write, or cannot hold `codec`.
    static func validateFormat(_ name: String, codec: OutputFormat.Codec? = nil, bitRate: BitRate? = nil) throws {
        do {
            _ = try OutputFormat.forFile(URL(fileURLWithPath: "-"), formatName: name, codec: codec, bitRate: bitRate?.bitsPerSecond)
        } catch {
            throw ValidationError(ErrorReporting.describe(error))
        }
    }

    /// The options for one conversion to `output`.
    func options(reverse: Bool, output: URL) throws -> ConversionOptions {
        ConversionOptions(channels: channels, reverse: reverse, blockFrames: blockFrames, overwrite: overwrite,
                          sampleFormat: sampleFormat.format, sampleRate: sampleRate,
                          outputFormat: try OutputFormat.forFile(output, formatName: format, codec: codec, bitRate: bitrate?.bitsPerSecond),
                          range: try range.range())
    }

    func showFFmpegDiagnostics() {
        FFmpegDiagnostics.show(verbose ? .warnings : .quiet)
    }
}

/// `--sample-format`: a sample format, or `native` for the input's own.
enum SampleFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case native, u8, s16, s24, s32, f32, f64

    var format: SampleFormat? { SampleFormat(rawValue: rawValue) }
}

/// `--bitrate`: "192000", "192k" or "1.5M".
struct BitRate: ExpressibleByArgument {
    let bitsPerSecond: Int

    init?(argument: String) {
        let text = argument.lowercased()
        let scale: Double = text.hasSuffix("k") ? 1000 : (text.hasSuffix("m") ? 1_000_000 : 1)
        guard let value = Double(scale == 1 ? text : String(text.dropLast())), value > 0 else { return nil }
        bitsPerSecond = Int((value * scale).rounded())
    }
}

extension OutputFormat.Codec: ExpressibleByArgument {}

