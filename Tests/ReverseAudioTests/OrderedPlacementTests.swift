import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg

/// A forward transfer into an in-order sink on several threads (``OrderedPlacement``): the
/// frames arrive in order and equal one thread's; a sink that fails or a cancellation stops
/// every thread, and the error is what the caller sees.
@Suite struct OrderedPlacementTests {
    /// Keeps what it is given, in order; can fail or cancel on a given write.
    final class OrderedSink: PCMSink {
        let format: PCMFormat
        var bytes: [UInt8] = []
        var positions: [Int64] = []
        var writes = 0
        var failOnWrite: Int?
        var cancelOnWrite: (Int, CancellationFlag)?

        init(format: PCMFormat) { self.format = format }

        func write(_ chunk: PCMChunk) throws {
            writes += 1
            if writes == failOnWrite { throw ReverseAudioError.output(.writeFailed(path: "memory", reason: "no space left on device")) }
            if let (at, flag) = cancelOnWrite, at == writes { flag.cancel() }
            positions.append(chunk.position)
            bytes += chunk.bytes
        }

        func finish() throws {}
        func cancel() {}
    }

    /// Two minutes of a chirp in MP3: a dozen segments of 16-bit stereo.
    static func chain(cancellation: CancellationFlag = CancellationFlag()) throws -> AudioChain {
        let url = try SignalFiles.shared("two-minutes.mp3", seconds: 120, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
        return try TestDecode.chain(url, cancellation: cancellation)
    }

    /// `chain` moved into `sink` forwards on `threads` threads.
    static func transfer(_ chain: AudioChain, to sink: OrderedSink, threads: Int,
                         cancellation: CancellationFlag? = nil) throws -> Scheduler.Report {
        let scheduler = Scheduler(threads: threads, cancellation: cancellation)
        return try scheduler.transfer(chain.job(threads: threads, scheduler: scheduler).input, reversed: false, into: sink)
    }

    @Test("on 2 threads the sink gets the frames in order, as one thread gives them")
    func inOrder() throws {
        let single = try Self.chain()
        let one = OrderedSink(format: single.source.format)
        _ = try Self.transfer(single, to: one, threads: 1)
        let parallel = try Self.chain()
        let two = OrderedSink(format: parallel.source.format)
        let report = try Self.transfer(parallel, to: two, threads: 2)
        #expect(report.threadsUsed == 2, "\(String(describing: report.singleThreadReason))")
        #expect(two.bytes == one.bytes)
        #expect(two.positions == two.positions.sorted() && two.positions.first == 0)
    }

    @Test("a sink that fails stops every thread, and its error is thrown")
    func failingSink() throws {
        let chain = try Self.chain()
        let sink = OrderedSink(format: chain.source.format)
        sink.failOnWrite = 3
        #expect(throws: ReverseAudioError.output(.writeFailed(path: "memory", reason: "no space left on device"))) {
            _ = try Self.transfer(chain, to: sink, threads: 2)
        }
        #expect(sink.writes == 3, "nothing was written after the failure")
    }

    @Test("cancellation stops every thread with CancellationError")
    func cancelled() throws {
        let flag = CancellationFlag()
        let chain = try Self.chain(cancellation: flag)
        let sink = OrderedSink(format: chain.source.format)
        sink.cancelOnWrite = (2, flag)
        #expect(throws: CancellationError.self) {
            _ = try Self.transfer(chain, to: sink, threads: 2, cancellation: flag)
        }
        #expect(sink.writes < 20, "the transfer went on after the cancellation: \(sink.writes) writes")
    }
}
