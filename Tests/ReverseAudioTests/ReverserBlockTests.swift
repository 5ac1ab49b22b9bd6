import Foundation
import Testing
import TestSupport
@testable import ReverseAudio

/// The public block stream of the reversed audio.
@Suite struct ReverserBlockTests {
    @Test("concatenated blocks equal areverse; sizes and positions as specified",
          arguments: [nil, 1, 7, 1024, 4099, 10_000_000])
    func blocks(_ blockFrames: Int?) throws {
        let input = Fixtures.url("m4a-aac-2ch-44100.m4a")
        let directory = try TemporaryDirectory()
        let reverser = try Reverser(url: input, channels: .all, blockFrames: blockFrames, temporaryDirectory: directory.url)
        var samples: [Int16] = []
        var blocks: [SampleBuffer] = []
        while let block = try reverser.next() {
            blocks.append(block)
            samples += block.samples
        }
        #expect(samples == (try FFmpegOracle.reversedSamples(of: input)))
        let total = samples.count / 2
        // AAC's frame by default (the seed's first-buffer size); never longer than the file.
        let size = min(blockFrames ?? 1024, total)
        #expect(reverser.blockFrames == size)
        #expect(blocks.count == (total + size - 1) / size)
        for (index, block) in blocks.enumerated() {
            #expect(block.position == Int64(index * size))
            #expect(block.frameCount > 0)
            if index < blocks.count - 1 { #expect(block.frameCount == size) }
        }
        #expect(directory.contents.isEmpty, "the temporary file is removed at the end")
    }

    @Test("first channel, as the seed did")
    func firstChannel() throws {
        let input = Fixtures.url("wav-pcm_s24le-2ch-48000.wav")
        let reverser = try Reverser(url: input, channels: .first)
        var samples: [Int16] = []
        while let block = try reverser.next() {
            #expect(block.channelCount == 1)
            samples += block.samples
        }
        #expect(samples == FFmpegOracle.channel(0, of: try FFmpegOracle.reversedSamples(of: input), channelCount: 2))
    }

    @Test("the async sequence gives the same blocks, and releasing it removes the temporary file")
    func asyncSequence() async throws {
        let input = Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3")
        let directory = try TemporaryDirectory()
        var samples: [Int16] = []
        for try await block in ReversedAudio(url: input, blockFrames: 500, temporaryDirectory: directory.url) {
            #expect(block.frameCount <= 500)
            samples += block.samples
        }
        #expect(samples == (try FFmpegOracle.reversedSamples(of: input)))
        #expect(directory.contents.isEmpty)
    }

    @Test("a block size below 1 is refused")
    func invalidBlockSize() {
        #expect(throws: ReverseAudioError.self) { try Reverser(url: Fixtures.url("edge-one-frame.wav"), blockFrames: 0) }
    }
}

/// The block stream written by the WAV writer: the composable (not the fastest) way to reverse.
@Suite struct BlockWritingTests {
    @Test("reversed blocks written through WAVWriter equal areverse, with the progress contract")
    func writeReversedBlocks() async throws {
        let input = Fixtures.url("flac-s16-2ch-44100.flac")
        let folder = try TemporaryDirectory()
        let output = folder.file("reversed.wav")
        let log = ProgressLog(output: output)
        let info = try AudioInfo.read(from: input)
        let frames = try await AudioFileWriter.write(ReversedAudio(url: input, blockFrames: 100, temporaryDirectory: folder.url),
                                               to: output, totalFrames: info.frames, progress: log.record)
        #expect(frames == info.frames)
        #expect(try FFmpegOracle.samples(of: output) == FFmpegOracle.reversedSamples(of: input))
        let values = log.entries.map(\.value)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 } && values.last == 1.0)
        #expect(log.entries.last?.outputExists == true && log.entries.dropLast().allSatisfy { !$0.outputExists })
        #expect(folder.contents == ["reversed.wav"])
    }

    @Test("an empty sequence needs a format; a failing sequence leaves no file")
    func failures() async throws {
        let folder = try TemporaryDirectory()
        await #expect(throws: ReverseAudioError.self) {
            try await AudioFileWriter.write(ReversedAudio(url: Fixtures.url("edge-empty-audio.wav")), to: folder.file("a.wav"))
        }
        let empty = try await AudioFileWriter.write(ReversedAudio(url: Fixtures.url("edge-empty-audio.wav")), to: folder.file("b.wav"),
                                              format: PCMFormat(sampleRate: 44100, channelCount: 2))
        #expect(empty == 0)
        await #expect(throws: ReverseAudioError.self) {
            try await AudioFileWriter.write(DecodedAudio(url: Fixtures.url("bad-text.mp3")), to: folder.file("c.wav"))
        }
        #expect(folder.contents == ["b.wav"])
    }
}
