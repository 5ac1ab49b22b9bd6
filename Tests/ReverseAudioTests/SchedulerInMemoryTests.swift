import Foundation
import Testing
@testable import ReverseAudioCore
import ReverseAudioTesting

/// The scheduler's decisions and placements on frames in memory (no FFmpeg, no file, no
/// process): every frame lands where it belongs forwards and mirrored, on one thread or several,
/// into a sink that takes positions or one that takes order; what only one continuous decode
/// handles (a misstated length, readers that differ, damage, a stream too short) falls back to
/// it with the same frames and says why as a typed reason.
@Suite struct SchedulerInMemoryTests {
    /// Long enough for several segments of ``SegmentedPlacement/minimumSegmentFrames``.
    static let frames = 5 * Int(SegmentedPlacement.minimumSegmentFrames) + 1234

    static func expectedReversal(frames: Int, channels: Int) -> [Int16] {
        let forward = MemorySource.countingSamples(frames: frames, channelCount: channels)
        return stride(from: frames - 1, through: 0, by: -1).flatMap { forward[($0 * channels)..<(($0 + 1) * channels)] }
    }

    static func job(_ readers: MemorySegmentReaders) -> Scheduler.Input {
        Scheduler.Input(source: readers.source, splitting: .readers(readers), name: "memory")
    }

    @Test("mirrored into a positioned sink on 1, 2, 3 and 7 threads: every frame at N − 1 − s",
          arguments: [1, 2, 3, 7])
    func mirrored(threads: Int) throws {
        let readers = MemorySegmentReaders { .counting(frames: Self.frames, channelCount: 2) }
        let sink = MemorySink(format: readers.source.format)
        let report = try Scheduler(threads: threads).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(sink.samples == Self.expectedReversal(frames: Self.frames, channels: 2))
        #expect(report.frames == Int64(Self.frames))
        // One segment of at least minimumSegmentFrames a thread: five here.
        #expect(report.threadsUsed == min(threads, 5))
        #expect(readers.opened == min(threads, 5) - 1)
        #expect(sink.finished && !sink.cancelled)
    }

    @Test("seams anywhere, a one-frame segment among them, still place every frame once")
    func seamsAnywhere() throws {
        let readers = MemorySegmentReaders { .counting(frames: 10_000, chunkFrames: 333) }
        var scheduler = Scheduler(threads: 3)
        scheduler.segmentBoundaries = { total in [0, 1, 2, 4_999, total - 1, total] }
        let sink = MemorySink(format: readers.source.format)
        let report = try scheduler.transfer(Self.job(readers), reversed: true, into: sink)
        #expect(sink.samples == Self.expectedReversal(frames: 10_000, channels: 1))
        #expect(report.threadsUsed == 3)
    }

    @Test("forwards on three threads, into positions and into an in-order sink: the input as it was",
          arguments: [true, false])
    func forwards(positioned: Bool) throws {
        // In order, segments hold 2 MiB at least (OrderedPlacement): two segments of stereo float here.
        let frames = 5 * (1 << 20) / 8 / 2
        let readers = MemorySegmentReaders {
            MemorySource(bytes: MemorySource.countingSamples(frames: 4 * frames).withUnsafeBytes { [UInt8]($0) },
                         format: PCMFormat(sampleFormat: .f32, sampleRate: 48_000, channelCount: 2))
        }
        let sink = MemorySink(format: readers.source.format, positioned: positioned)
        let report = try Scheduler(threads: 3).transfer(Self.job(readers), reversed: false, into: sink)
        #expect(sink.samples == MemorySource.countingSamples(frames: 4 * frames))
        #expect(report.threadsUsed == (positioned ? 3 : 2), "\(String(describing: report.singleThreadReason))")
    }

    @Test("reversed into an in-order sink (an encoder): placed on two threads while read from its start")
    func reversedInOrder() throws {
        let readers = MemorySegmentReaders { .counting(frames: Self.frames) }
        let sink = MemorySink(format: readers.source.format, positioned: false)
        let report = try Scheduler(threads: 2).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(sink.samples == Self.expectedReversal(frames: Self.frames, channels: 1))
        #expect(report.threadsUsed == 2)
        #expect(report.temporaryBytes == Int64(Self.frames * 2))
    }

    @Test("a stream shorter than it states: one continuous decode, a second pass at the true length",
          arguments: [true, false])
    func statedTooLong(threads2: Bool) throws {
        let held = Self.frames
        let readers = MemorySegmentReaders { .counting(frames: held, stating: .frames(Int64(held + 5_000))) }
        let sink = MemorySink(format: readers.source.format)
        let report = try Scheduler(threads: threads2 ? 2 : 1).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(sink.samples == Self.expectedReversal(frames: held, channels: 1))
        #expect(report.frames == Int64(held))
        #expect(report.passes == 2)
        #expect(report.lengthSource == .decode)
        if threads2 {
            #expect(report.singleThreadReason == .streamEndedEarly(atFrame: Int64(held), statedFrames: Int64(held + 5_000)))
            #expect(readers.rewinds == 1)
        } else {
            #expect(report.singleThreadReason == nil)
        }
    }

    @Test("a stream longer than it states: the readers notice past the last segment, one decode places it all")
    func statedTooShort() throws {
        let held = Self.frames
        let stated = Int64(held - 4_000)
        let readers = MemorySegmentReaders { .counting(frames: held, stating: .frames(stated)) }
        let sink = MemorySink(format: readers.source.format)
        let report = try Scheduler(threads: 2).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(report.singleThreadReason == .streamGoesOn(statedFrames: stated))
        #expect(sink.samples == Self.expectedReversal(frames: held, channels: 1))
        #expect(report.passes == 2)
    }

    @Test("another open that gives other frames: one reader, and the reason says so")
    func readersDiffer() throws {
        let readers = MemorySegmentReaders { .counting(frames: Self.frames) }
        readers.othersDiffer = true
        let sink = MemorySink(format: readers.source.format)
        let report = try Scheduler(threads: 4).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(report.threadsUsed == 1)
        #expect(report.singleThreadReason == .readersDiffer)
        #expect(sink.samples == Self.expectedReversal(frames: Self.frames, channels: 1))
    }

    @Test("damage met inside a segment: the parallel writes are discarded, one decode places the frames")
    func damageInsideASegment() throws {
        let readers = MemorySegmentReaders { .counting(frames: Self.frames) }
        readers.damageAt = Int64(Self.frames / 2)
        let sink = MemorySink(format: readers.source.format)
        let report = try Scheduler(threads: 2).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(report.threadsUsed == 1)
        #expect(report.singleThreadReason == .damageMet)
        #expect(sink.restarts >= 1)
        #expect(sink.samples == Self.expectedReversal(frames: Self.frames, channels: 1))
    }

    @Test("shorter than two segments: not split, and the reason names the segment size")
    func tooShort() throws {
        let readers = MemorySegmentReaders { .counting(frames: 1_000) }
        let sink = MemorySink(format: readers.source.format)
        let report = try Scheduler(threads: 2).transfer(Self.job(readers), reversed: true, into: sink)
        #expect(report.singleThreadReason == .tooShort(minimumSegmentFrames: SegmentedPlacement.minimumSegmentFrames))
        #expect(report.singleThreadReason?.description == "too short to split (segments of at least 65536 frames)")
        #expect(readers.opened == 0)
        #expect(sink.samples == Self.expectedReversal(frames: 1_000, channels: 1))
    }

    @Test("a job read by one reader carries its maker's reason into the report, only when more threads were allowed",
          arguments: [1, 2])
    func singleReason(threads: Int) throws {
        let source = MemorySource.counting(frames: 3_000)
        let input = Scheduler.Input(source: source, splitting: .single(reason: .renderedAsPlayed), name: "memory")
        let sink = MemorySink(format: source.format)
        let report = try Scheduler(threads: threads).transfer(input, reversed: false, into: sink)
        #expect(report.singleThreadReason == (threads > 1 ? .renderedAsPlayed : nil))
        #expect(sink.samples == MemorySource.countingSamples(frames: 3_000))
    }

    @Test("a failing sink: the error comes back, the sink is cancelled, never finished")
    func failingSink() throws {
        let readers = MemorySegmentReaders { .counting(frames: Self.frames) }
        let sink = MemorySink(format: readers.source.format)
        sink.failOnWrite = 2
        #expect(throws: ReverseAudioError.self) {
            try Scheduler(threads: 2).transfer(Self.job(readers), reversed: true, into: sink)
        }
        #expect(sink.cancelled && !sink.finished)
    }

    @Test("cancelled before it starts: CancellationError, nothing finished")
    func cancelled() throws {
        let flag = CancellationFlag()
        flag.cancel()
        let readers = MemorySegmentReaders { .counting(frames: Self.frames) }
        let sink = MemorySink(format: readers.source.format)
        #expect(throws: CancellationError.self) {
            try Scheduler(threads: 2, cancellation: flag).transfer(Self.job(readers), reversed: true, into: sink)
        }
        #expect(sink.cancelled && !sink.finished)
    }

    @Test("cancelled while the threads place it (at the first write): CancellationError, every thread stopped")
    func cancelledMidPlacement() throws {
        let flag = CancellationFlag()
        let readers = MemorySegmentReaders { .counting(frames: Self.frames) }
        let sink = MemorySink(format: readers.source.format)
        sink.cancelOnWrite = (1, flag)
        #expect(throws: CancellationError.self) {
            try Scheduler(threads: 3, cancellation: flag).transfer(Self.job(readers), reversed: true, into: sink)
        }
        // A bound on work: no thread takes another segment once the flag is up.
        #expect(sink.cancelled && sink.writes <= 3)
    }

    @Test("a source of unknown length reversed in order: stored forwards, read back from its end")
    func unknownLength() throws {
        let source = MemorySource.counting(frames: 7_777, channelCount: 3, stating: .unknown)
        let reversal = Scheduler(threads: 2).reversal(of: Scheduler.Input(source: source, splitting: .single(reason: .pipe), name: "pipe"))
        let sink = MemorySink(format: source.format, positioned: false)
        while let chunk = try reversal.read(maximumFrames: 1000) { try sink.write(chunk) }
        #expect(sink.samples == Self.expectedReversal(frames: 7_777, channels: 3))
        #expect(reversal.placement.singleThreadReason == .lengthUnknown)
        #expect(reversal.length.frames == 7_777)
    }
}
