import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// The decoder against `ffmpeg -i X -f s16le -acodec pcm_s16le -`, byte for byte.
@Suite(.runsProcesses) struct DecodingOracleTests {
    static func decodeAll(_ url: URL, channels: ChannelSelection) throws -> (samples: [Int16], format: PCMFormat, blocks: [SampleBuffer]) {
        let source = try TestDecode.source(url, channels: channels)
        let blocks = try TestDecode.blocks(of: source)
        return (blocks.flatMap(\.samples), source.format, blocks)
    }

    @Test("all channels equal ffmpeg's decode", arguments: Fixtures.allDecodableInputs)
    func allChannels(_ input: URL) async throws {
        let expected = try await FFmpegOracle.samples(of: input)
        let decoded = try Self.decodeAll(input, channels: .all)
        #expect(decoded.samples.count == expected.count, "sample count")
        #expect(decoded.samples == expected)
        let probe = try await FFmpegOracle.probe(input)
        #expect(decoded.format.channelCount == probe.stream["channels"] as? Int)
        #expect(String(decoded.format.sampleRate) == probe.stream["sample_rate"] as? String)
    }

    @Test("mix equals ffmpeg -ac 1", arguments: Fixtures.allDecodableInputs)
    func mixDown(_ input: URL) async throws {
        let expected = try await FFmpegOracle.samples(of: input, ["-ac", "1"])
        let decoded = try Self.decodeAll(input, channels: .mix)
        #expect(decoded.format.channelCount == 1)
        #expect(decoded.samples == expected)
    }

    @Test("first and an index equal that channel of the full decode", arguments: Fixtures.allDecodableInputs)
    func singleChannels(_ input: URL) throws {
        let all = try Self.decodeAll(input, channels: .all)
        let channelCount = all.format.channelCount
        let first = try Self.decodeAll(input, channels: .first)
        #expect(first.samples == FFmpegOracle.channel(0, of: all.samples, channelCount: channelCount))
        let last = try Self.decodeAll(input, channels: .channel(channelCount - 1))
        #expect(last.samples == FFmpegOracle.channel(channelCount - 1, of: all.samples, channelCount: channelCount))
    }

    @Test("blocks are the decoder's frames, positioned, none empty")
    func blockShape() throws {
        let decoded = try Self.decodeAll(Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3"), channels: .all)
        var position: Int64 = 0
        for block in decoded.blocks {
            #expect(block.frameCount > 0)
            #expect(block.position == position)
            #expect(block.channelCount == 2 && block.sampleRate == 44100)
            position += Int64(block.frameCount)
        }
        // The first MP3 frame loses 1105 of its 1152 frames to the encoder-delay trim.
        #expect(decoded.blocks.first?.frameCount == 1152 - 1105)
        #expect(decoded.blocks.dropFirst().first?.frameCount == 1152)
    }

    @Test("the seed's block size is the first decoded buffer's length before gapless trimming",
          arguments: [("mp3-cbr128-xing-2ch-44100.mp3", 1152), ("m4a-aac-2ch-44100.m4a", 1024),
                      ("wav-pcm_s16le-2ch-44100.wav", 1024), ("wav-pcm_s16le-1ch-8000.wav", 2048),
                      ("flac-s16-2ch-44100.flac", 4608), ("caf-alac-2ch-44100.caf", 4096)])
    func firstBufferFrameCount(_ name: String, _ expected: Int) throws {
        // Known from the open: the first packet is decoded then, to fix the format.
        let source = try AudioFileSource(url: Fixtures.url(name))
        #expect(source.blockFrames == expected)
        _ = try source.read(maximumFrames: .max)
        #expect(source.blockFrames == expected)
    }

    @Test("the public reader delivers the same samples, mixed down as -ac 1 too")
    func reader() async throws {
        let input = Fixtures.url("m4a-aac-2ch-44100.m4a")
        for (channels, arguments) in [(ChannelSelection.all, [String]()), (.mix, ["-ac", "1"])] {
            let reader = try AudioReader(url: input, sampleFormat: .s16, channels: channels)
            var samples: [Int16] = []
            while let chunk = try reader.read(maximumFrames: 4096) { samples += chunk.samples(as: Int16.self) }
            #expect(samples == (try await FFmpegOracle.samples(of: input, arguments)))
        }
    }

    @Test("a truncated file decodes what ffmpeg decodes, with a warning",
          arguments: ["bad-truncated-30pct.mp3", "bad-truncated-30pct.flac", "bad-truncated-30pct-faststart.m4a"])
    func truncated(_ name: String) async throws {
        let input = Fixtures.url(name)
        let chain = try TestDecode.chain(input)
        let samples = try TestDecode.blocks(of: chain.source).flatMap(\.samples)
        #expect(!samples.isEmpty)
        await #expect(samples == (try FFmpegOracle.samples(of: input)))
        #expect(chain.warnings.contains { $0.description.contains("truncated") }, "\(chain.warnings)")
    }

    @Test("a complete file decodes without warnings", arguments: Fixtures.matrix)
    func noWarnings(_ name: String) throws {
        let chain = try TestDecode.chain(Fixtures.url(name))
        while try chain.source.read(maximumFrames: .max) != nil {}
        #expect(chain.warnings.isEmpty)
    }
}
