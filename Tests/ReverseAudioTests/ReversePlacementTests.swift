import Foundation
import Testing
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// The mirrored placement on its own: which blocks a sink receives for a stream of frames.
@Suite struct ReversePlacementTests {
    /// Records every block and assembles the output.
    final class RecordingSink: PositionedPCMSink {
        var blocks: [(position: Int64, samples: [Int16])] = []

        func discardWrites(expectingFrames frames: Int64) throws { blocks.removeAll() }

        func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
            blocks.append((frame, Array(bytes.bindMemory(to: Int16.self))))
        }

        func assembled(channels: Int, totalFrames: Int64) -> [Int16] {
            var output = [Int16](repeating: -1, count: Int(totalFrames) * channels)
            for block in blocks {
                output.replaceSubrange(Int(block.position) * channels..<Int(block.position) * channels + block.samples.count,
                                       with: block.samples)
            }
            return output
        }
    }

    /// Frame f, channel c holds f * 10 + c: reversal mistakes and channel swaps both show.
    static func source(frames: Int, channels: Int) -> [Int16] {
        (0..<frames).flatMap { frame in (0..<channels).map { Int16(truncatingIfNeeded: frame * 10 + $0) } }
    }

    static func reversed(_ samples: [Int16], channels: Int) -> [Int16] {
        stride(from: samples.count - channels, through: 0, by: -channels).flatMap { samples[$0..<$0 + channels] }
    }

    @Test("blocks tile the reversed stream exactly", arguments: [
        (frames: 1000, channels: 2, block: 1), (frames: 1000, channels: 2, block: 7), (frames: 1000, channels: 1, block: 1152),
        (frames: 1152 * 3, channels: 2, block: 1152), (frames: 999, channels: 6, block: 100), (frames: 5, channels: 2, block: 2),
        (frames: 1, channels: 2, block: 4096), (frames: 10_000, channels: 3, block: 997),
    ])
    func tiling(_ shape: (frames: Int, channels: Int, block: Int)) throws {
        let input = Self.source(frames: shape.frames, channels: shape.channels)
        for chunk in [1, 13, 1152, shape.frames] {
            let sink = RecordingSink()
            // Small batches force many flushes.
            let placement = try ReversePlacement(totalFrames: Int64(shape.frames), blockFrames: shape.block,
                                                 frameBytes: shape.channels * 2, sink: sink, batchBytes: 64)
            var start = 0
            while start < shape.frames {
                let count = min(chunk, shape.frames - start)
                try input[(start * shape.channels)..<((start + count) * shape.channels)].withUnsafeBufferPointer {
                    try placement.consume(UnsafeRawBufferPointer($0), frames: count)
                }
                start += count
            }
            #expect(placement.isComplete)
            #expect(sink.assembled(channels: shape.channels, totalFrames: Int64(shape.frames))
                    == Self.reversed(input, channels: shape.channels))
            // In output order, blocks are full except the very last one, and none is empty.
            let ordered = sink.blocks.sorted { $0.position < $1.position }
            let blockSize = min(shape.block, shape.frames)  // a block longer than the stream is the stream
            let expectedCount = (shape.frames + blockSize - 1) / blockSize
            #expect(ordered.count == expectedCount)
            for (index, block) in ordered.enumerated() {
                let frames = block.samples.count / shape.channels
                #expect(block.position == Int64(index * blockSize))
                #expect(frames > 0)
                if index < ordered.count - 1 { #expect(frames == blockSize) }
            }
        }
    }

    @Test("a decode longer or shorter than predicted is detected, not written past the start")
    func mismatch() throws {
        let input = Self.source(frames: 100, channels: 2)
        for predicted in [Int64(60), Int64(140), 0] {
            let sink = RecordingSink()
            let placement = try ReversePlacement(totalFrames: predicted, blockFrames: 16, frameBytes: 4, sink: sink,
                                                 batchBytes: 64)
            try input.withUnsafeBytes { try placement.consume($0, frames: 100) }
            #expect(!placement.isComplete)
            #expect(placement.sourceFrames == 100)
            #expect(sink.blocks.allSatisfy { $0.position >= 0 && $0.position < max(predicted, 1) })
        }
    }

    @Test("a block size past the stream's length is clamped; one that cannot fit in memory is an error, not a trap",
          arguments: [Int.max, 99_999_999_999, 1 << 40])
    func hugeBlocks(_ blockFrames: Int) throws {
        let sink = RecordingSink()
        let placement = try ReversePlacement(totalFrames: 100, blockFrames: blockFrames, frameBytes: 4, sink: sink)
        #expect(placement.blockFrames == 100)
        let long = Int64(ReversePlacement.maximumBlockBytes)  // frames: a block of all of them is 4x the limit
        #expect(throws: ReverseAudioError.self) {
            try ReversePlacement(totalFrames: long, blockFrames: blockFrames, frameBytes: 4, sink: sink)
        }
        #expect(throws: ReverseAudioError.self) {
            try ReversePlacement(totalFrames: long, blockFrames: 0, frameBytes: 4, sink: sink)
        }
    }
}
