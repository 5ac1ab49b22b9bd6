import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// Reversal to WAV against `ffmpeg -af areverse`, byte for byte, for every input and channel choice.
@Suite(.runsProcesses) struct ReversalOracleTests {
    static func reverse(_ input: URL, channels: ChannelSelection, blockFrames: Int? = nil,
                        in directory: TemporaryDirectory) async throws -> (samples: [Int16], result: ConversionResult) {
        let output = directory.file("\(channels)-out.wav")
        let result = try AudioConverter.convert(
            input, to: output, options: ConversionOptions(channels: channels, reverse: true, blockFrames: blockFrames),
            cancellation: CancellationFlag(), progress: nil)
        return await (try FFmpegOracle.samples(of: output), result)
    }

    @Test("all channels equal areverse", arguments: Fixtures.allDecodableInputs)
    func allChannels(_ input: URL) async throws {
        let directory = try TemporaryDirectory()
        let reversed = try await Self.reverse(input, channels: .all, in: directory)
        let expected = try await FFmpegOracle.reversedSamples(of: input)
        #expect(reversed.samples == expected)
        #expect(reversed.result.frames * Int64(reversed.result.format.channelCount) == Int64(expected.count))
        #expect(directory.contents == ["all-out.wav"], "no temporary files left")
    }

    @Test("first is channel 0 of areverse; mix is -ac 1 then areverse", arguments: Fixtures.allDecodableInputs)
    func singleChannels(_ input: URL) async throws {
        let directory = try TemporaryDirectory()
        let all = try await FFmpegOracle.reversedSamples(of: input)
        let channelCount = await (try FFmpegOracle.probe(input).stream["channels"] as? Int) ?? 0
        #expect(try await Self.reverse(input, channels: .first, in: directory).samples
                == FFmpegOracle.channel(0, of: all, channelCount: channelCount))
        #expect(try await Self.reverse(input, channels: .mix, in: directory).samples
                == FFmpegOracle.reversedSamples(of: input, ["-ac", "1"]))
    }

    @Test("the block size changes nothing in the output", arguments: [1, 7, 1000, 44_101, 50_000_000])
    func blockSizes(_ blockFrames: Int) async throws {
        let input = Fixtures.url("mp3-vbrq4-xing-2ch-44100.mp3")
        let directory = try TemporaryDirectory()
        let reversed = try await Self.reverse(input, channels: .all, blockFrames: blockFrames, in: directory)
        await #expect(reversed.samples == (try FFmpegOracle.reversedSamples(of: input)))
        // The block used: as asked, but never longer than the file (one block of the whole).
        #expect(reversed.result.blockFrames == min(blockFrames, Int(reversed.result.frames)))
    }

    @Test("a container that states a wrong length is caught before decoding (FLAC's last frame, PCM's file size), and said",
          arguments: ["edge-wrong-length-long.flac", "edge-wrong-length-short.flac", "edge-wrong-length-long-fact.wav"])
    func wrongLength(_ name: String) async throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let reversed = try await Self.reverse(input, channels: .all, in: directory)
        await #expect(reversed.samples == (try FFmpegOracle.reversedSamples(of: input)))
        #expect(reversed.result.decodePasses == 1)
        #expect(reversed.result.predictedFrames == reversed.result.frames)
        #expect(!reversed.result.warnings.isEmpty, "the header's length is not the file's: said")
        #expect(directory.contents == ["all-out.wav"])
    }

    /// A source whose length is stated wrongly: what no check before reading catches.
    final class MisstatedSource: PCMSource {
        let inner: any PCMSource
        let statedFrames: Int64
        init(_ inner: any PCMSource, statedFrames: Int64) {
            self.inner = inner
            self.statedFrames = statedFrames
        }
        var format: PCMFormat { inner.format }
        var length: PCMLength { PCMLength(frames: statedFrames, source: .container) }
        func read(maximumFrames: Int) throws -> PCMChunk? { try inner.read(maximumFrames: maximumFrames) }
        func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo { try inner.seek(to: frame, endingAt: end) }
    }

    @Test("a length found wrong while reading is placed again with the true one: into a file, and through the temporary store",
          arguments: [-1000, 0, 777])
    func secondPass(_ error: Int64) async throws {
        let input = Fixtures.url("flac-s16-2ch-44100.flac")
        let frames = try #require(try AudioInfo.read(from: input).frames)
        let directory = try TemporaryDirectory()
        let expected = try await FFmpegOracle.reversedSamples(of: input)
        // Straight into a WAV (positioned): the writer starts again for the second pass.
        let misstated = MisstatedSource(try TestDecode.source(input), statedFrames: frames + error)
        let output = directory.file("placed.wav")
        let writer = try AudioFileWriter(url: output, format: misstated.format, expectedFrames: frames + error)
        let job = Scheduler.Input(source: misstated, splitting: .single(reason: .oneThreadAsked), name: "test")
        let report = try Scheduler(threads: 1).transfer(job, reversed: true, into: writer)
        #expect(report.frames == frames)
        #expect(report.passes == (error == 0 ? 1 : 2))
        #expect(report.lengthSource == (error == 0 ? .container : .decode))
        #expect(try await FFmpegOracle.samples(of: output) == expected)
        // Read back block by block through the temporary store.
        let stored = TestDecode.reversal(MisstatedSource(try TestDecode.source(input), statedFrames: frames + error))
        var samples: [Int16] = []
        while let block = try stored.readBlock(frames: 4096) { samples += block.samples }
        #expect(samples == expected)
        #expect(stored.placement.passes == (error == 0 ? 1 : 2))
        #expect(stored.length == PCMLength(frames: frames, source: error == 0 ? .container : .decode))
    }

    @Test("lengths are predicted exactly for the well-formed matrix (one decode)", arguments: Fixtures.matrix)
    func oneDecode(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let reversed = try await Self.reverse(Fixtures.url(name), channels: .all, in: directory)
        #expect(reversed.result.decodePasses == 1, "predicted \(String(describing: reversed.result.predictedFrames)), decoded \(reversed.result.frames)")
    }

    @Test("one frame and no frames", arguments: ["edge-one-frame.wav", "edge-one-frame.flac", "edge-empty-audio.wav"])
    func tinyInputs(_ name: String) async throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let reversed = try await Self.reverse(input, channels: .all, in: directory)
        await #expect(reversed.samples == (try FFmpegOracle.reversedSamples(of: input)))
        let probe = try await FFmpegOracle.probe(directory.file("all-out.wav"))
        #expect(probe.stream["codec_name"] as? String == "pcm_s16le")
    }

    @Test("the WAV is what ffprobe expects: pcm_s16le at the input's rate, 5.1 stays 5.1")
    func wavHeader() async throws {
        let input = Fixtures.url("flac-s16-6ch-48000.flac")
        let directory = try TemporaryDirectory()
        _ = try await Self.reverse(input, channels: .all, in: directory)
        let probe = try await FFmpegOracle.probe(directory.file("all-out.wav"))
        #expect(probe.format["format_name"] as? String == "wav")
        #expect(probe.stream["codec_name"] as? String == "pcm_s16le")
        #expect(probe.stream["sample_rate"] as? String == "48000")
        #expect(probe.stream["channel_layout"] as? String == "5.1")
    }
}
