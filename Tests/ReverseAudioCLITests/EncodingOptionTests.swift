import Foundation
import Testing
import TestSupport

/// `--codec`, `--bitrate` and `--sample-rate` against ffprobe and the ffmpeg CLI, and what a
/// lossy output sounds like, not only how long it is.
@Suite(.runsProcesses) struct EncodingOptionTests {
    static let flac = Fixtures.url("flac-s16-2ch-44100.flac")

    @Test("--codec aac puts AAC in .m4a for a lossless input (ALAC otherwise); --bitrate sets its rate")
    func codecAndBitRate() async throws {
        let directory = try TemporaryDirectory()
        let automatic = directory.file("auto.m4a")
        #expect(try await CLI.convert(Self.flac, automatic, reverse: false).status == 0)
        #expect(try await FFmpegOracle.probe(automatic).stream["codec_name"] as? String == "alac")
        for bitRate in [96_000, 256_000] {
            let output = directory.file("aac\(bitRate).m4a")
            let result = try await CLI.convert(Self.flac, output, reverse: false, ["--codec", "aac", "--bitrate", "\(bitRate / 1000)k"])
            #expect(result.status == 0, "\(result.errorText)")
            let stream = try await FFmpegOracle.probe(output).stream
            #expect(stream["codec_name"] as? String == "aac")
            let measured = Int(stream["bit_rate"] as? String ?? "") ?? 0
            #expect(abs(measured - bitRate) < bitRate / 4, "asked \(bitRate), got \(measured)")
        }
        let refused = try await CLI.convert(Self.flac, directory.file("x.flac"), reverse: false, ["--codec", "mp3"])
        // Known from the command line: a usage error (issue 20).
        expectUsageError(refused, naming: "cannot hold mp3")
    }

    @Test("--sample-rate converts exactly as ffmpeg -ar does (swresample, default options)", arguments: [48_000, 22_050, 8_000])
    func sampleRate(_ rate: Int) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("r.wav")
        let result = try await CLI.convert(Self.flac, output, reverse: false, ["--sample-rate", "\(rate)"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: Self.flac, ["-ar", "\(rate)"]))
    }

    @Test("MP3 holds at most two channels: a 5.1 input says so and suggests --channels mix")
    func mp3Channels() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(Fixtures.url("flac-s16-6ch-48000.flac"), directory.file("x.mp3"), reverse: false)
        expectFailure(result, naming: "--channels mix")
        #expect(directory.contents.isEmpty)
    }

    @Test("a lossy output sounds like its input: reversed MP3, M4A and ADTS decode within the codec's loss",
          arguments: ["mp3", "m4a", "aac"])
    func lossySound(_ ext: String) async throws {
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let directory = try TemporaryDirectory()
        let output = directory.file("r.\(ext)")
        let result = try await CLI.convert(input, output, reverse: true, ["--bitrate", "192k"])
        #expect(result.status == 0, "\(result.errorText)")
        let expected = try await FFmpegOracle.reversedSamples(of: input)
        let decoded = try await FFmpegOracle.samples(of: output)
        // ADTS keeps the encoder's 1024 frames of priming; MP3 (LAME tag) and M4A (edit list) trim it.
        let (lag, snr) = Self.bestAlignment(decoded, expected, channels: 2, lags: 0...2048)
        #expect(lag == (ext == "aac" ? 1024 : 0), "\(ext): the decode starts \(lag) frames late")
        #expect(snr > 20, "\(ext): \(snr) dB signal to noise against areverse")
    }

    /// The lag (in frames) at which `decoded` best matches `expected`, and the signal-to-noise
    /// ratio there, in dB, over the overlapping part.
    static func bestAlignment(_ decoded: [Int16], _ expected: [Int16], channels: Int, lags: ClosedRange<Int>) -> (Int, Double) {
        var best = (lag: 0, snr: -Double.infinity)
        let length = min(expected.count, decoded.count - lags.upperBound * channels)
        guard length > 0 else { return best }
        for lag in lags {
            var signal = 0.0
            var noise = 0.0
            for index in stride(from: 0, to: length, by: 7) {
                let reference = Double(expected[index])
                let difference = Double(decoded[index + lag * channels]) - reference
                signal += reference * reference
                noise += difference * difference
            }
            let snr = 10 * log10(signal / max(noise, 1))
            if snr > best.snr { best = (lag, snr) }
        }
        return best
    }
}
