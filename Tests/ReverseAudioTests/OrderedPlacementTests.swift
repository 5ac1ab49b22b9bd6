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
            if writes == failOnWrite { throw ReverseAudioError.writeFailed(path: "memory", reason: "no space left on device") }
            if let (at, flag) = cancelOnWrite, at == writes { flag.cancel() }
            positions.append(chunk.position)
            bytes += chunk.bytes
        }

        func finish() throws {}
        func cancel() {}
    }

    /// Two minutes of a chirp in MP3: a dozen segments of 16-bit stereo.
    static func source(cancellation: CancellationFlag? = nil) throws -> any PCMSource {
        let url = try SignalFiles.shared("two-minutes.mp3", seconds: 120, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
        let file = try AudioFileSource(url: url, cancellation: cancellation)
        _ = try file.resolveLengthKeepingIndex()
        return try SampleConverter(file, sampleFormat: .s16)
    }

    @Test("on 2 threads the sink gets the frames in order, as one thread gives them")
    func inOrder() throws {
        let single = try Self.source()
        let one = OrderedSink(format: single.format)
        _ = try transferReporting(single, to: one, threads: 1, progress: nil, cancellation: nil)
        let parallel = try Self.source()
        let two = OrderedSink(format: parallel.format)
        let report = try transferReporting(parallel, to: two, threads: 2, progress: nil, cancellation: nil)
        #expect(report.threadsUsed == 2, "\(report.singleThreadReason ?? "")")
        #expect(two.bytes == one.bytes)
        #expect(two.positions == two.positions.sorted() && two.positions.first == 0)
    }

    @Test("a sink that fails stops every thread, and its error is thrown")
    func failingSink() throws {
        let source = try Self.source()
        let sink = OrderedSink(format: source.format)
        sink.failOnWrite = 3
        #expect(throws: ReverseAudioError.writeFailed(path: "memory", reason: "no space left on device")) {
            _ = try transferReporting(source, to: sink, threads: 2, progress: nil, cancellation: nil)
        }
        #expect(sink.writes == 3, "nothing was written after the failure")
    }

    @Test("cancellation stops every thread with CancellationError")
    func cancelled() throws {
        let flag = CancellationFlag()
        let source = try Self.source(cancellation: flag)
        let sink = OrderedSink(format: source.format)
        sink.cancelOnWrite = (2, flag)
        #expect(throws: CancellationError.self) {
            _ = try transferReporting(source, to: sink, threads: 2, progress: nil, cancellation: flag)
        }
        #expect(sink.writes < 20, "the transfer went on after the cancellation: \(sink.writes) writes")
    }
}
