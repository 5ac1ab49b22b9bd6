import ArgumentParser
import Foundation
import ReverseAudio

/// The options `convert` and `reverse` share.
struct ConversionFlags: ParsableArguments {
    @Option(help: "Channels to keep: mix mixes them all to one (as ffmpeg -ac 1); N keeps channel N, counted from 0.")
    var channels: ChannelSelection = .all

    @Option(help: ArgumentHelp(SampleFormatArgument.help(native: "the input's own") + " (default: s16)"))
    var sampleFormat: SampleFormatArgument?

    @Option(help: "Sample rate written, in Hz (swresample converts, as ffmpeg -ar); default: the input's.")
    var sampleRate: Int?

    @Option(help: ArgumentHelp(OutputFormatNames.help()))
    var format: String?

    @Option(help: "Codec inside the output, where its format holds several (aac for .m4a from a lossless input).")
    var codec: String?

    @Option(help: "Bit rate of a lossy output, in bits per second or with k (192k), at most 100M; default: the input's for the same codec, else 192k.")
    var bitrate: BitRate?

    @OptionGroup var range: RangeFlags

    @OptionGroup var effects: EffectFlags

    @Option(help: "Threads a reversal decodes one input on, segment by segment (default: the cores; 1: one continuous decode). The output is the same byte for byte.")
    var threads: Int?

    @Option(help: "Frames per written block (default: the first decoded buffer's frame count).")
    var blockFrames: Int?

    func validate() throws {
        if let blockFrames, blockFrames < 1 { throw ValidationError("--block-frames must be at least 1") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1 to 256") }
        if let sampleRate, sampleRate < 1 { throw ValidationError("--sample-rate must be a positive number of Hz") }
        if let format { try Self.validateFormat(format, codec: codec, bitRate: bitrate) }
    }

    /// Fails with a usage error when the output named `path` (or `name`, when given) is not a
    /// format we write, or cannot hold `codec` at `bitRate`: known before any input is read.
    static func validateFormat(_ name: String?, output path: String = "-", codec: String? = nil, bitRate: BitRate? = nil) throws {
        do {
            _ = try OutputFormat.forFile(StandardStreams.outputURL(path), formatName: name, codec: codec, bitRate: bitRate?.bitsPerSecond)
        } catch {
            throw ValidationError(ErrorReporting.describe(error))
        }
    }

    /// What to say when the default 16-bit samples narrowed wider ones into an output that
    /// would have kept them (a 24-bit WAV into FLAC): nil when `--sample-format` was given,
    /// the input had 16 bits or fewer, or the output is lossy anyway.
    func narrowing(_ result: ConversionResult) -> String? {
        guard sampleFormat == nil, result.format.sampleFormat == .s16, result.outputFormat.keepsSamples,
              let bits = result.source.bitsPerSample, bits > 16 else { return nil }
        return "the input's \(bits)-bit samples are written as 16-bit (the default); --sample-format native keeps them"
    }

    /// The options for one conversion to `output`.
    func options(reverse: Bool, output: URL, overwrite: Bool) throws -> ConversionOptions {
        ConversionOptions(channels: channels, reverse: reverse, blockFrames: blockFrames, overwrite: overwrite,
                          sampleFormat: (sampleFormat ?? .s16).format, sampleRate: sampleRate,
                          outputFormat: try OutputFormat.forFile(output, formatName: format, codec: codec, bitRate: bitrate?.bitsPerSecond),
                          range: try range.range(), effects: effects.effects, threads: threads ?? ConversionOptions.availableCores)
    }
}

/// `--sample-format`: a sample format, or `native` for the input's own.
enum SampleFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case native, u8, s16, s24, s32, f32, f64

    var format: SampleFormat? { SampleFormat(rawValue: rawValue) }

    /// The one description of `--sample-format` (the parser lists the choices and the
    /// default); `native` says what `native` means for the command.
    static func help(native: String) -> String {
        "Sample format written; native: \(native)."
    }
}

/// The one description of `--format`: the formats written, by their names.
enum OutputFormatNames {
    static func help(extra: String? = nil) -> String {
        let names = OutputFormat.names + (extra.map { [$0] } ?? [])
        return "Output format when the file's name does not say it: \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")."
    }
}

/// `--bitrate`: "192000", "192k" or "1.5M".
struct BitRate: ExpressibleByArgument {
    let bitsPerSecond: Int

    /// The most a bit rate may be: 100 Mb/s (no audio codec goes near it; the encoders say
    /// what they take).
    static let maximum = 100_000_000

    init?(argument: String) {
        let text = argument.lowercased()
        let scale: Double = text.hasSuffix("k") ? 1000 : (text.hasSuffix("m") ? 1_000_000 : 1)
        let digits = scale == 1 ? text : String(text.dropLast())
        // Digits and one point only: no sign, exponent, `inf` or `nan`, and never a value that
        // would not convert to an integer.
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              digits.filter({ $0 == "." }).count <= 1, let value = Double(digits),
              value * scale <= Double(BitRate.maximum) else { return nil }
        // Checked once rounded: `0.4` is no more a bit rate than `0`.
        let rounded = Int((value * scale).rounded())
        guard rounded > 0 else { return nil }
        bitsPerSecond = rounded
    }
}



