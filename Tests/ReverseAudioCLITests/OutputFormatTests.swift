import Foundation
import Testing
import TestSupport

/// Every output format, checked with the ffmpeg CLI: lossless outputs hold exactly the input's
/// samples in the input's own sample format; lossy ones the input's rate, channels and length
/// within the codec's priming and padding.
@Suite(.runsProcesses) struct OutputFormatTests {
    /// One input per sample format and lossless codec.
    static let losslessInputs = [
        "wav-pcm_u8-1ch-8000.wav", "wav-pcm_s16le-2ch-44100.wav", "wav-pcm_s24le-2ch-48000.wav",
        "wav-pcm_s32le-2ch-44100.wav", "wav-pcm_f32le-2ch-44100.wav", "wav-pcm_f64le-1ch-22050.wav",
        "aiff-pcm_s24be-6ch-48000.aiff", "caf-pcm_s24be-1ch-48000.caf", "flac-s16-2ch-44100.flac",
        "flac-s24-2ch-96000.flac", "m4a-alac-2ch-44100.m4a", "caf-alac-6ch-48000.caf",
    ]
    static let losslessOutputs = ["wav", "aiff", "caf", "flac", "m4a"]

    /// ffmpeg's raw format for a sample format name as ffprobe prints it.
    static func rawFormat(_ sampleFormat: String, bits: Int?) -> String {
        switch sampleFormat.replacingOccurrences(of: "p", with: "") {
        case "u8": return "u8"
        case "s16": return "s16le"
        case "s32": return "s32le"
        case "flt": return "f32le"
        case "dbl": return "f64le"
        default: return "s16le"
        }
    }

    /// `ffmpeg -i FILE -f RAW -`: the decoded samples in their own format.
    static func rawSamples(_ file: URL, format: String) async throws -> Data {
        // An MP4's audio ends where its container says (FFmpegOracle.statedEnd).
        let trim = try await FFmpegOracle.statedEnd(of: file).map { ["-af", "atrim=end_sample=\($0)"] } ?? []
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error"] + FFmpegOracle.decoderThreads + ["-i", file.path] + trim + ["-f", format, "-"])
        try #require(result.status == 0, "ffmpeg: \(result.errorText)")
        return result.standardOutput
    }

    /// Bits per raw sample, or the sample format's own size when ffprobe reports none.
    static func effectiveBits(_ format: (name: String, bits: Int?)) -> Int {
        if let bits = format.bits { return bits }
        switch format.name.replacingOccurrences(of: "p", with: "") {
        case "u8": return 8
        case "s16": return 16
        case "dbl": return 64
        default: return 32
        }
    }

    static func sampleFormat(of file: URL) async throws -> (name: String, bits: Int?) {
        let stream = try await FFmpegOracle.probe(file).stream
        let bits = (stream["bits_per_raw_sample"] as? String).flatMap(Int.init)
        return (stream["sample_fmt"] as? String ?? "?", bits)
    }

    @Test("--sample-format native: a lossless output holds the input's samples in its sample format",
          arguments: Fixtures.decodable.filter { !$0.hasPrefix("edge-wrong") && !$0.hasPrefix("edge-empty") })
    func nativeLossless(_ name: String) async throws {
        let input = Fixtures.url(name)
        let (format, bits) = try await Self.sampleFormat(of: input)
        let raw = Self.rawFormat(format, bits: bits)
        let expected = try await Self.rawSamples(input, format: raw)
        let directory = try TemporaryDirectory()
        let isFloat = format.hasPrefix("flt") || format.hasPrefix("dbl")
        // A lossy input goes into .m4a as AAC: a lossy output, checked elsewhere.
        let isLossy = await ["mp3", "aac", "vorbis", "opus"].contains(try FFmpegOracle.probe(input).stream["codec_name"] as? String ?? "")
        for ext in Self.losslessOutputs where !(isLossy && ext == "m4a") {
            let output = directory.file("out.\(ext)")
            let result = try await CLI.convert(input, output, reverse: false, ["--sample-format", "native"])
            // FLAC and ALAC hold integers of at most 24 bits: floats and 32-bit are refused, clearly.
            if (ext == "flac" || ext == "m4a") && (isFloat || (format.hasPrefix("s32") && (bits ?? 32) > 24)) {
                expectFailure(result, naming: "out.\(ext)")
                #expect(!FileManager.default.fileExists(atPath: output.path))
                continue
            }
            #expect(result.status == 0, "\(name) → .\(ext): \(result.errorText)")
            #expect(try await Self.rawSamples(output, format: raw) == expected, "\(name) → .\(ext): samples differ")
            let written = try await Self.sampleFormat(of: output)
            if format.hasPrefix("u8") && (ext == "flac" || ext == "m4a") {
                // No 8-bit FLAC or ALAC: widened to 16 bits, exactly, and said so.
                #expect(written.name.hasPrefix("s16"), "\(name) → .\(ext): \(written)")
                #expect(result.errorText.isEmpty || !result.errorText.contains("error"))
            } else {
                #expect(written.name.replacingOccurrences(of: "p", with: "") == format.replacingOccurrences(of: "p", with: ""),
                        "\(name) → .\(ext): sample format \(written.name), input \(format)")
                // PCM decoders leave bits_per_raw_sample unset for whole-byte formats; FLAC sets 16.
                #expect(Self.effectiveBits(written) == Self.effectiveBits((format, bits)),
                        "\(name) → .\(ext): bits \(String(describing: written.bits)), input \(String(describing: bits))")
            }
        }
    }

    @Test("reversal into every format: lossless equals areverse, lossy keeps rate, channels and length",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "flac-s24-2ch-96000.flac", "m4a-aac-6ch-48000.m4a"])
    func reverseIntoEveryFormat(_ name: String) async throws {
        let input = Fixtures.url(name)
        let expected = try await FFmpegOracle.reversedSamples(of: input)
        let probe = try await FFmpegOracle.probe(input).stream
        let rate = Int(probe["sample_rate"] as? String ?? "") ?? 0
        let channels = probe["channels"] as? Int ?? 0
        let frames = expected.count / channels
        let directory = try TemporaryDirectory()
        for ext in ["wav", "aiff", "caf", "flac", "m4a", "mp3", "aac"] {
            let output = directory.file("out.\(ext)")
            var options = ["--verbose"]
            if ext == "mp3" && rate > 48000 { options += ["--sample-rate", "48000"] }
            if ext == "mp3" && channels > 2 { options += ["--channels", "mix"] }
            let result = try await CLI.convert(input, output, reverse: true, options)
            #expect(result.status == 0, "\(name) → .\(ext): \(result.errorText)")
            let decoded = try await FFmpegOracle.samples(of: output)
            if ["wav", "aiff", "caf", "flac"].contains(ext) || (ext == "m4a" && !name.hasSuffix(".mp3") && !name.hasPrefix("m4a-aac")) {
                #expect(decoded == expected, "\(name) → .\(ext) is not areverse")
            } else {
                let written = try await FFmpegOracle.probe(output).stream
                let outRate = Int(written["sample_rate"] as? String ?? "") ?? 0
                let outChannels = written["channels"] as? Int ?? 0
                #expect(outRate == (options.contains("48000") ? 48000 : rate), "\(name) → .\(ext): rate \(outRate)")
                #expect(outChannels == (options.contains("mix") ? 1 : channels), "\(name) → .\(ext): \(outChannels) channels")
                let outFrames = decoded.count / max(outChannels, 1) * rate / max(outRate, 1)
                // Priming and padding of one or two codec frames, at most.
                #expect(abs(outFrames - frames) <= 2 * 1152 + 1024, "\(name) → .\(ext): \(outFrames) frames for \(frames)")
            }
            if ext != "wav" && ext != "aiff" && ext != "caf" {
                #expect(result.errorText.contains("temporary files: ") && !result.errorText.contains("temporary files: 0 "),
                        "an encoded reversal reports its temporary bytes: \(result.errorText)")
            }
        }
        #expect(directory.contents == ["out.aac", "out.aiff", "out.caf", "out.flac", "out.m4a", "out.mp3", "out.wav"])
    }

    @Test("an unknown extension is an error that lists the supported ones; --format names one")
    func unknownExtension() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let result = try await CLI.convert(input, directory.file("out.xyz"), reverse: false)
        // Known from the command line: a usage error (issue 20).
        expectUsageError(result, naming: "out.xyz")
        #expect(result.errorText.contains(".flac") && result.errorText.contains(".mp3"))
        let named = try await CLI.convert(input, directory.file("out.xyz"), reverse: false, ["--format", "flac"])
        #expect(named.status == 0, "\(named.errorText)")
        #expect(try await FFmpegOracle.probe(directory.file("out.xyz")).stream["codec_name"] as? String == "flac")
    }

    @Test("--verbose says what was converted: a 24-bit input written as the default s16")
    func conversionsAreSaid() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(Fixtures.url("flac-s24-2ch-96000.flac"), directory.file("out.wav"), reverse: false, ["--verbose"])
        #expect(result.status == 0)
        #expect(result.errorText.contains("s24 → s16"), "\(result.errorText)")
    }
}
