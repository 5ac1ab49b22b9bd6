import Foundation
import Testing
@testable import ReverseAudioCore
import ReverseAudioTesting

/// A forward transfer into an in-order sink on several threads (``OrderedPlacement``), on frames
/// in memory: the frames arrive in order and equal the input; a sink that fails or a
/// cancellation stops every thread, and the error is what the caller sees.
@Suite struct OrderedPlacementTests {
    /// Three segments of ``OrderedPlacement/segmentBytes`` in stereo float.
    static let frames = 3 * OrderedPlacement.segmentBytes / 8

    static func readers() -> MemorySegmentReaders {
        MemorySegmentReaders {
            MemorySource(bytes: MemorySource.countingSamples(frames: 4 * frames).withUnsafeBytes { [UInt8]($0) },
                         format: PCMFormat(sampleFormat: .f32, sampleRate: 48_000, channelCount: 2), chunkFrames: 4096)
        }
    }

    static func transfer(_ readers: MemorySegmentReaders, to sink: MemorySink, threads: Int,
                         cancellation: CancellationFlag? = nil) throws -> Scheduler.Report {
        let input = Scheduler.Input(source: readers.source, splitting: .readers(readers), name: "memory")
        return try Scheduler(threads: threads, cancellation: cancellation).transfer(input, reversed: false, into: sink)
    }

    @Test("on 2 and 3 threads the sink gets the frames in order, as they are", arguments: [2, 3])
    func inOrder(threads: Int) throws {
        let readers = Self.readers()
        let sink = MemorySink(format: readers.source.format, positioned: false)
        let report = try Self.transfer(readers, to: sink, threads: threads)
        #expect(report.threadsUsed == threads, "\(String(describing: report.singleThreadReason))")
        #expect(sink.samples == MemorySource.countingSamples(frames: 4 * Self.frames))
        #expect(sink.positions == sink.positions.sorted() && sink.positions.first == 0)
        #expect(sink.finished)
    }

    @Test("a sink that fails stops every thread, and its error is thrown")
    func failingSink() throws {
        let readers = Self.readers()
        let sink = MemorySink(format: readers.source.format, positioned: false)
        sink.failOnWrite = 3
        #expect(throws: ReverseAudioError.output(.writeFailed(path: "memory", reason: "no space left on device"))) {
            _ = try Self.transfer(readers, to: sink, threads: 2)
        }
        #expect(sink.writes == 3, "nothing was written after the failure")
        #expect(sink.cancelled)
    }

    @Test("cancellation stops every thread with CancellationError")
    func cancelled() throws {
        let flag = CancellationFlag()
        let readers = Self.readers()
        let sink = MemorySink(format: readers.source.format, positioned: false)
        sink.cancelOnWrite = (2, flag)
        #expect(throws: CancellationError.self) {
            _ = try Self.transfer(readers, to: sink, threads: 2, cancellation: flag)
        }
        // A bound on work: of the 24 chunks, the writes after the flag are those already in hand.
        #expect(sink.writes < 6, "the transfer went on after the cancellation: \(sink.writes) writes")
    }
}
