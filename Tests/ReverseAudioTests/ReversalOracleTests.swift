import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// Reversal to WAV against `ffmpeg -af areverse`, byte for byte, for every input and channel choice.
@Suite struct ReversalOracleTests {
    static func reverse(_ input: URL, channels: ChannelSelection, blockFrames: Int? = nil,
                        in directory: TemporaryDirectory) throws -> (samples: [Int16], result: ConversionResult) {
        let output = directory.file("\(channels)-out.wav")
        let result = try AudioConverter.convert(
            input, to: output, options: ConversionOptions(channels: channels, reverse: true, blockFrames: blockFrames),
            cancellation: CancellationFlag(), progress: nil)
        return (try FFmpegOracle.samples(of: output), result)
    }

    @Test("all channels equal areverse", arguments: Fixtures.allDecodableInputs)
    func allChannels(_ input: URL) throws {
        let directory = try TemporaryDirectory()
        let reversed = try Self.reverse(input, channels: .all, in: directory)
        let expected = try FFmpegOracle.reversedSamples(of: input)
        #expect(reversed.samples == expected)
        #expect(reversed.result.frames * Int64(reversed.result.format.channelCount) == Int64(expected.count))
        #expect(directory.contents == ["all-out.wav"], "no temporary files left")
    }

    @Test("first is channel 0 of areverse; mix is -ac 1 then areverse", arguments: Fixtures.allDecodableInputs)
    func singleChannels(_ input: URL) throws {
        let directory = try TemporaryDirectory()
        let all = try FFmpegOracle.reversedSamples(of: input)
        let channelCount = (try FFmpegOracle.probe(input).stream["channels"] as? Int) ?? 0
        #expect(try Self.reverse(input, channels: .first, in: directory).samples
                == FFmpegOracle.channel(0, of: all, channelCount: channelCount))
        #expect(try Self.reverse(input, channels: .mix, in: directory).samples
                == FFmpegOracle.reversedSamples(of: input, ["-ac", "1"]))
    }

    @Test("the block size changes nothing in the output", arguments: [1, 7, 1000, 44_101, 50_000_000])
    func blockSizes(_ blockFrames: Int) throws {
        let input = Fixtures.url("mp3-vbrq4-xing-2ch-44100.mp3")
        let directory = try TemporaryDirectory()
        let reversed = try Self.reverse(input, channels: .all, blockFrames: blockFrames, in: directory)
        #expect(reversed.samples == (try FFmpegOracle.reversedSamples(of: input)))
        // The block used: as asked, but never longer than the file (one block of the whole).
        #expect(reversed.result.blockFrames == min(blockFrames, Int(reversed.result.frames)))
    }

    @Test("a container that states a wrong length is caught and decoded again",
          arguments: ["edge-wrong-length-long.flac", "edge-wrong-length-short.flac", "edge-wrong-length-long-fact.wav"])
    func wrongLength(_ name: String) throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let reversed = try Self.reverse(input, channels: .all, in: directory)
        #expect(reversed.samples == (try FFmpegOracle.reversedSamples(of: input)))
        #expect(reversed.result.decodePasses == 2)
        #expect(reversed.result.lengthSource == .decode)
        #expect(directory.contents == ["all-out.wav"])
    }

    @Test("lengths are predicted exactly for the well-formed matrix (one decode)", arguments: Fixtures.matrix)
    func oneDecode(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let reversed = try Self.reverse(Fixtures.url(name), channels: .all, in: directory)
        #expect(reversed.result.decodePasses == 1, "predicted \(String(describing: reversed.result.predictedFrames)), decoded \(reversed.result.frames)")
    }

    @Test("one frame and no frames", arguments: ["edge-one-frame.wav", "edge-one-frame.flac", "edge-empty-audio.wav"])
    func tinyInputs(_ name: String) throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let reversed = try Self.reverse(input, channels: .all, in: directory)
        #expect(reversed.samples == (try FFmpegOracle.reversedSamples(of: input)))
        let probe = try FFmpegOracle.probe(directory.file("all-out.wav"))
        #expect(probe.stream["codec_name"] as? String == "pcm_s16le")
    }

    @Test("the WAV is what ffprobe expects: pcm_s16le at the input's rate, 5.1 stays 5.1")
    func wavHeader() throws {
        let input = Fixtures.url("flac-s16-6ch-48000.flac")
        let directory = try TemporaryDirectory()
        _ = try Self.reverse(input, channels: .all, in: directory)
        let probe = try FFmpegOracle.probe(directory.file("all-out.wav"))
        #expect(probe.format["format_name"] as? String == "wav")
        #expect(probe.stream["codec_name"] as? String == "pcm_s16le")
        #expect(probe.stream["sample_rate"] as? String == "48000")
        #expect(probe.stream["channel_layout"] as? String == "5.1")
    }
}
