import Foundation
import Testing
import TestSupport

/// `reverse-audio convert` against ffmpeg's own decode, sample for sample.
@Suite(.runsProcesses) struct ConvertOracleTests {
    enum Channels: String, Sendable, CaseIterable { case all, first, mix }

    /// What ffmpeg makes of `input` for each `--channels` choice, reversed or not.
    static func expectedSamples(of input: URL, channelCount: Int, reverse: Bool) async throws -> [Channels: [Int16]] {
        let decode: (URL, [String]) async throws -> [Int16] = reverse ? { try await FFmpegOracle.reversedSamples(of: $0, $1) }
                                                                        : { try await FFmpegOracle.samples(of: $0, $1) }
        let all = try await decode(input, [])
        return [.all: all, .first: FFmpegOracle.channel(0, of: all, channelCount: channelCount),
                .mix: try await decode(input, ["-ac", "1"])]
    }

    @Test("convert --channels all|first|mix writes ffmpeg's samples into a real 16-bit WAV",
          arguments: Fixtures.matrix, [false, true])
    func matchesFFmpeg(_ name: String, reverse: Bool) async throws {
        let input = Fixtures.url(name)
        let inputStream = try await FFmpegOracle.probe(input).stream
        let inputChannels = try #require(inputStream["channels"] as? Int)
        let expectations = try await Self.expectedSamples(of: input, channelCount: inputChannels, reverse: reverse)
        let directory = try TemporaryDirectory()
        for channels in Channels.allCases {
            let output = directory.file("\(channels).wav")
            let result = try await CLI.convert(input, output, reverse: reverse, ["--channels", channels.rawValue])
            #expect(result.status == 0, "--channels \(channels): \(result.errorText)")

            let expected = try #require(expectations[channels])
            let outputChannels = channels == .all ? inputChannels : 1
            let samples = try await FFmpegOracle.samples(of: output)
            #expect(samples.count == expected.count, "--channels \(channels): frame count")
            #expect(samples == expected, "--channels \(channels)")
            #expect(result.outputText.contains(" \(expected.count / outputChannels) frames"), "summary: \(result.outputText)")

            let (format, stream) = try await FFmpegOracle.probe(output)
            #expect(format["format_name"] as? String == "wav")
            #expect(stream["codec_name"] as? String == "pcm_s16le")
            #expect(stream["sample_rate"] as? String == inputStream["sample_rate"] as? String)
            #expect(stream["channels"] as? Int == outputChannels, "--channels \(channels)")
        }
        #expect(directory.contents == Channels.allCases.map { "\($0).wav" }.sorted(), "no leftovers")
    }

    @Test("--block-frames does not change the reversed samples",
          arguments: ["wav-pcm_s16le-1ch-8000.wav", "mp3-cbr64-xing-1ch-22050.mp3"], [1, 7, 10_000_000])
    func blockFramesAreInvisible(_ name: String, _ blockFrames: Int) async throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let byDefault = directory.file("default.wav")
        let blocked = directory.file("blocked.wav")
        #expect(try await CLI.convert(input, byDefault, reverse: true).status == 0)
        let result = try await CLI.convert(input, blocked, reverse: true, ["--block-frames", "\(blockFrames)"])
        #expect(result.status == 0, "\(result.errorText)")
        let samples = try await FFmpegOracle.samples(of: blocked)
        #expect(!samples.isEmpty)
        await #expect(samples == (try FFmpegOracle.samples(of: byDefault)))
        try await expectReversal(blocked, of: input)
    }
}
