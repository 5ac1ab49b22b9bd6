import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// The reversal as a source handing out blocks, the seed's reverser.
@Suite(.runsProcesses) struct ReverserBlockTests {
    @Test("concatenated blocks equal areverse; sizes and positions as specified",
          arguments: [nil, 1, 7, 1024, 4099, 10_000_000])
    func blocks(_ blockFrames: Int?) async throws {
        let input = Fixtures.url("m4a-aac-2ch-44100.m4a")
        let directory = try TemporaryDirectory()
        var samples: [Int16] = []
        var blocks: [SampleBuffer] = []
        do {
            let chain = try TestDecode.chain(input)
            let reverser = TestDecode.reversal(chain.source, blockFrames: blockFrames ?? chain.file.blockFrames, folder: directory.url)
            try reverser.seek(to: 0, endingAt: nil)
            let size = reverser.placement.blockFrames ?? 0
            while let block = try reverser.readBlock(frames: size) {
                blocks.append(block)
                samples += block.samples
            }
            let total = samples.count / 2
            // AAC's frame by default (the seed's first-buffer size); never longer than the file.
            #expect(size == min(blockFrames ?? 1024, total))
            #expect(blocks.count == (total + size - 1) / size)
            for (index, block) in blocks.enumerated() {
                #expect(block.position == Int64(index * size))
                #expect(block.frameCount > 0)
                if index < blocks.count - 1 { #expect(block.frameCount == size) }
            }
        }
        await #expect(samples == (try FFmpegOracle.reversedSamples(of: input)))
        #expect(directory.contents.isEmpty, "the temporary file has no name, and is gone with the source")
    }

    @Test("first channel, as the seed did")
    func firstChannel() async throws {
        let input = Fixtures.url("wav-pcm_s24le-2ch-48000.wav")
        let reverser = TestDecode.reversal(try TestDecode.source(input, channels: .first))
        var samples: [Int16] = []
        while let block = try reverser.readBlock(frames: 4096) {
            #expect(block.channelCount == 1)
            samples += block.samples
        }
        await #expect(samples == FFmpegOracle.channel(0, of: try FFmpegOracle.reversedSamples(of: input), channelCount: 2))
    }

    @Test("the seed's async sequence gives the same blocks, first block first, positioned", arguments: [1, 2])
    func asyncSequence(_ threads: Int) async throws {
        let input = Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3")
        var samples: [Int16] = []
        var position: Int64 = 0
        for try await block in AudioReverser(options: ConversionOptions(threads: threads)).reversedBlocks(of: input, frames: 500) {
            #expect(block.frameCount <= 500 && block.frameCount > 0 && block.position == position)
            position += Int64(block.frameCount)
            samples += block.samples
        }
        await #expect(samples == (try FFmpegOracle.reversedSamples(of: input)))
    }

    @Test("a block size below 1 is refused")
    func invalidBlockSize() throws {
        let reverser = TestDecode.reversal(try TestDecode.source(Fixtures.url("edge-one-frame.wav")), blockFrames: 0)
        #expect(throws: ReverseAudioError.self) { try reverser.read(maximumFrames: 1) }
    }
}

/// The reversal moved into a file by the scheduler, as every command writes.
@Suite(.runsProcesses) struct BlockWritingTests {
    @Test("a reversal transferred into a WAV writer equals areverse, with progress until it is in place")
    func writeReversedBlocks() async throws {
        let input = Fixtures.url("flac-s16-2ch-44100.flac")
        let folder = try TemporaryDirectory()
        let output = folder.file("reversed.wav")
        let log = ProgressLog(output: output)
        let source = TestDecode.reversal(try TestDecode.source(input), blockFrames: 100, folder: folder.url)
        let writer = try AudioFileWriter(url: output, format: source.format, expectedFrames: source.length.frames)
        let frames = try TestDecode.transfer(source, to: writer, progress: log.record)
        #expect(frames == (try AudioInfo.read(from: input)).frames)
        #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.reversedSamples(of: input))
        let values = log.entries.map(\.value)
        #expect(!values.isEmpty && zip(values, values.dropFirst()).allSatisfy { $0 <= $1 } && values.allSatisfy { $0 <= 1 })
        #expect(log.entries.allSatisfy { !$0.outputExists }, "published only once complete")
        #expect(folder.contents == ["reversed.wav"])
    }

    /// The muxer writes over its file and never truncates it (see `Muxer.init`): writes that
    /// start again after a longer first attempt must not leave the first attempt's tail.
    @Test("writes started again after a longer first attempt leave a file of the new length only")
    func discardedWrites() async throws {
        let folder = try TemporaryDirectory()
        let output = folder.file("again.wav")
        let writer = try AudioFileWriter(url: output, format: PCMFormat(sampleRate: 8000, channelCount: 1), expectedFrames: 8000)
        try writer.append(try SampleBuffer(samples: Array(repeating: 1000, count: 8000), channelCount: 1, sampleRate: 8000, position: 0))
        try writer.discardWrites(expectingFrames: 10)
        let ten: [Int16] = Array(-5..<5)
        try writer.append(try SampleBuffer(samples: ten, channelCount: 1, sampleRate: 8000, position: 0))
        try writer.finish()
        #expect(try await FFmpegOracle.samples(of: output) == ten)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int)
        #expect(size < 200, "the first attempt's 16000 bytes are still in the file (\(size) bytes)")
    }

    @Test("an empty source writes an empty file; a failing input leaves no file")
    func failures() throws {
        let folder = try TemporaryDirectory()
        let empty = TestDecode.reversal(try TestDecode.source(Fixtures.url("edge-empty-audio.wav")))
        let writer = try AudioFileWriter(url: folder.file("b.wav"), format: empty.format)
        #expect(try TestDecode.transfer(empty, to: writer) == 0)
        #expect(throws: ReverseAudioError.self) { try TestDecode.source(Fixtures.url("bad-text.mp3")) }
        #expect(folder.contents == ["b.wav"])
    }
}
