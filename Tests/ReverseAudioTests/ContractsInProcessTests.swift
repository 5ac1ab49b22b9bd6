import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
import ReverseAudioTesting

/// The contracts every reading and writing path goes through, on frames in memory: chunks and
/// the frames a source has made but not lent, what a seek reports, a sink's defaults, the
/// scheduler's transfer (order, progress, cancellation), progress reporting, and the sources
/// that only move frames around (a range, sources end to end, silence) at their edges.
@Suite struct ContractsInProcessTests {
    // MARK: Helpers


    /// A sink that implements only what a sink must: the protocol's defaults do the rest.
    final class PlainSink: PCMSink {
        let format = PCMFormat(sampleRate: 8_000, channelCount: 1)
        func write(_ chunk: PCMChunk) throws {}
        func finish() throws {}
        func cancel() {}
    }

    /// A source that notes every seek it is asked for, with where the caller says reading ends.
    final class SeekSpy: PCMSource {
        let inner: MemorySource
        var seeks: [(frame: Int64, end: Int64?)] = []
        init(_ inner: MemorySource) { self.inner = inner }
        var format: PCMFormat { inner.format }
        var length: PCMLength { inner.length }
        func read(maximumFrames: Int) throws -> PCMChunk? { try inner.read(maximumFrames: maximumFrames) }
        func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
            seeks.append((frame, end))
            return try inner.seek(to: frame, endingAt: end)
        }
    }

    static func input(_ source: any PCMSource) -> Scheduler.Input {
        Scheduler.Input(source: source, splitting: .single(reason: .pipe), name: "memory")
    }

    // MARK: Chunks and pending frames

    @Test("a chunk's prefix keeps its start, dropping frames moves its position, moving keeps its bytes")
    func chunkParts() {
        let samples: [Int16] = [0, 1, 10, 11, 20, 21, 30, 31]
        samples.withUnsafeBytes { bytes in
            let chunk = PCMChunk(bytes: bytes, frameCount: 4, position: 100)
            let head = chunk.prefix(frames: 3, frameBytes: 4)
            #expect(head.frameCount == 3 && head.position == 100 && Array(head.samples(as: Int16.self)) == [0, 1, 10, 11, 20, 21])
            let tail = chunk.dropping(frames: 3, frameBytes: 4)
            #expect(tail.frameCount == 1 && tail.position == 103 && Array(tail.samples(as: Int16.self)) == [30, 31])
            #expect(chunk.dropping(frames: 4, frameBytes: 4).frameCount == 0)
            // A prefix as long as the chunk, or longer, is the chunk.
            for frames in [4, 5] {
                let whole = chunk.prefix(frames: frames, frameBytes: 4)
                #expect(whole.frameCount == 4 && whole.bytes.count == 16 && whole.position == 100)
            }
            let moved = chunk.moved(to: -7)
            #expect(moved.position == -7 && moved.frameCount == 4)
            #expect(moved.bytes.baseAddress == bytes.baseAddress)
        }
    }

    @Test("pending frames are lent in order, never more than wait or than asked, then nothing")
    func pendingFramesInOrder() {
        let samples: [Int16] = Array(0..<10)
        samples.withUnsafeBytes { bytes in
            var pending = PendingFrames()
            #expect(pending.isEmpty)
            #expect(pending.take(4, frameBytes: 2, position: 0) == nil)
            pending.set(bytes.baseAddress!, frames: 10)
            #expect(!pending.isEmpty)
            var lent: [Int16] = []
            var counts: [Int] = []
            var position: Int64 = 50
            while let chunk = pending.take(4, frameBytes: 2, position: position) {
                #expect(chunk.position == position)
                lent += chunk.samples(as: Int16.self)
                counts.append(chunk.frameCount)
                position += Int64(chunk.frameCount)
            }
            #expect(counts == [4, 4, 2])
            #expect(lent == samples)
            #expect(pending.isEmpty)
        }
    }

    @Test("pending frames cleared, or set to none, lend nothing")
    func pendingFramesCleared() {
        let samples: [Int16] = [1, 2, 3]
        samples.withUnsafeBytes { bytes in
            var pending = PendingFrames()
            pending.set(bytes.baseAddress!, frames: 3)
            _ = pending.take(1, frameBytes: 2, position: 0)
            pending.clear()
            #expect(pending.isEmpty && pending.take(10, frameBytes: 2, position: 1) == nil)
            pending.set(bytes.baseAddress!, frames: 0)
            #expect(pending.isEmpty && pending.take(10, frameBytes: 2, position: 0) == nil)
        }
    }

    // MARK: Sinks and the transfer

    @Test("a sink that implements only the required members takes no positions, cannot start over, and says why if asked")
    func sinkDefaults() throws {
        let sink = PlainSink()
        #expect(sink.positioned == nil)
        #expect(!sink.canStartOver)
        #expect {
            try sink.startOver(expectingFrames: 10)
        } throws: { error in
            guard case ReverseAudioError.output(.writeFailed(_, let reason)) = error else { return false }
            return reason == "what was written cannot be taken back"
        }
    }

    @Test("a forward transfer on one thread: every frame in order, chunks positioned end to end, progress rising to 1")
    func transferInOrder() throws {
        let frames = 200_000
        let source = MemorySource.counting(frames: frames, channelCount: 2, chunkFrames: 1 << 20)
        let sink = MemorySink(format: source.format, positioned: false)
        let told = Collected<Double>()
        let report = try Scheduler(threads: 1, progress: { told.append($0) }).transfer(Self.input(source), reversed: false, into: sink)
        #expect(sink.samples == MemorySource.countingSamples(frames: frames, channelCount: 2))
        #expect(report.frames == Int64(frames) && report.singleThreadReason == nil)
        // Chunks of transferChunkFrames, the last what is left.
        #expect(sink.positions == [0, 65_536, 131_072, 196_608])
        #expect(told.values.count == 4 && zip(told.values, told.values.dropFirst()).allSatisfy { $0 < $1 } && told.values.last == 1)
        #expect(sink.finished && !sink.cancelled)
    }

    @Test("a forward transfer of a source of unknown length moves every frame and reports no progress it cannot know")
    func transferUnknownLength() throws {
        let source = MemorySource.counting(frames: 5_000, stating: .unknown)
        let sink = MemorySink(format: source.format, positioned: false)
        let told = Collected<Double>()
        let report = try Scheduler(threads: 1, progress: { told.append($0) }).transfer(Self.input(source), reversed: false, into: sink)
        #expect(report.frames == 5_000 && sink.samples == MemorySource.countingSamples(frames: 5_000))
        #expect(told.values.isEmpty)
    }

    @Test("a cancellation that arrives during the second write stops the transfer before a third: CancellationError, sink cancelled")
    func transferCancelled() throws {
        let flag = CancellationFlag()
        let source = MemorySource.counting(frames: 300_000, chunkFrames: 1 << 20)
        let sink = MemorySink(format: source.format, positioned: false)
        sink.cancelOnWrite = (2, flag)
        #expect(throws: CancellationError.self) {
            try Scheduler(threads: 1, cancellation: flag).transfer(Self.input(source), reversed: false, into: sink)
        }
        #expect(sink.writes == 2)
        #expect(sink.cancelled && !sink.finished)
        // Not read past what was written: the source stopped with the sink.
        #expect(source.position == 2 * Int64(transferChunkFrames))
    }

    @Test("a sink that fails mid-transfer: its own error comes back, and the sink is cancelled")
    func transferSinkFails() throws {
        let source = MemorySource.counting(frames: 300_000, chunkFrames: 1 << 20)
        let sink = MemorySink(format: source.format, positioned: false)
        sink.failOnWrite = 3
        #expect {
            try Scheduler(threads: 1).transfer(Self.input(source), reversed: false, into: sink)
        } throws: { error in
            (error as? ReverseAudioError)?.description == "memory: writing failed: no space left on device"
        }
        #expect(sink.cancelled && !sink.finished)
    }

    @Test("reversed into a sink that takes positions: placed straight in, no temporary file, progress rising to 1")
    func transferReversedIntoPositions() throws {
        let source = MemorySource.counting(frames: 150_000, chunkFrames: 1 << 20)
        let sink = MemorySink(format: source.format, positioned: true)
        let told = Collected<Double>()
        let report = try Scheduler(threads: 1, progress: { told.append($0) }).transfer(Self.input(source), reversed: true, into: sink)
        #expect(sink.samples == Array(MemorySource.countingSamples(frames: 150_000).reversed()))
        #expect(report.temporaryBytes == 0 && report.passes == 1 && report.lengthSource == .container)
        #expect(zip(told.values, told.values.dropFirst()).allSatisfy { $0 <= $1 } && told.values.last == 1)
    }

    // MARK: Progress and cancellation

    @Test("progress never goes back, moves in steps of at least 1 %, stays below 1 until complete, completes once")
    func progressReporter() {
        let told = Collected<Double>()
        let reporter = ProgressReporter({ told.append($0) })
        for fraction in [0.0, 0.005, 0.02, 0.01, 0.025, 0.5, 0.3, 2.0, 1.0] { reporter.update(fraction) }
        #expect(told.values == [0, 0.02, 0.5, 0.999])
        reporter.complete()
        reporter.complete()
        reporter.update(0.9999)
        #expect(told.values == [0, 0.02, 0.5, 0.999, 1])
        // Without a handler, nothing to do and nothing to fail.
        ProgressReporter(nil).update(0.5)
        ProgressReporter(nil).complete()
    }

    @Test("a stage's progress is mapped into its share of the whole, and clamped to the stage")
    func progressStages() {
        let told = Collected<Double>()
        let reporter = ProgressReporter({ told.append($0) }, step: 0)
        let second = reporter.stage(from: 0.5, to: 0.75)
        for fraction in [-1.0, 0, 0.5, 1, 3] { second(fraction) }
        #expect(told.values == [0.5, 0.5, 0.625, 0.75, 0.75])
    }

    @Test("a cancellation flag starts clear, stays set once set, and its check says the same")
    func cancellationFlag() {
        let flag = CancellationFlag()
        let check = flag.check
        #expect(!flag.isCancelled && !check())
        flag.cancel()
        flag.cancel()
        #expect(flag.isCancelled && check())
    }

    @Test("cancelling the task while the blocking work runs sets the flag the work polls")
    func blockingWorkCancelledMidWork() async throws {
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let gate = Gate()
        let task = Task {
            try await BlockingWork.run { flag -> Bool in
                startedContinuation.yield()
                gate.wait()
                return flag.isCancelled
            }
        }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        gate.open()
        #expect(try await task.value)
    }

    @Test("a task cancelled before the blocking work starts throws CancellationError and never runs it; else its result or error")
    func blockingWorkOutcomes() async throws {
        let ran = Collected<Int>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await BlockingWork.run { _ -> Int in
                ran.append(1)
                return 1
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ran.values.isEmpty)
        #expect(try await BlockingWork.run { flag in flag.isCancelled ? -1 : 42 } == 42)
        await #expect(throws: ReverseAudioError.self) {
            try await BlockingWork.run { _ -> Int in throw ReverseAudioError.range(.invalidRange(reason: "test")) }
        }
    }

    /// A gate one thread waits at until another opens it.
    final class Gate: @unchecked Sendable {
        // @unchecked: `isOpen` is only touched under `condition`.
        private let condition = NSCondition()
        private var isOpen = false
        func wait() {
            condition.lock()
            while !isOpen { condition.wait() }
            condition.unlock()
        }
        func open() {
            condition.lock()
            isOpen = true
            condition.broadcast()
            condition.unlock()
        }
    }

    // MARK: Ranges

    @Test("a range of the first frame, and of the last: one frame each, at position 0 of its own timeline")
    func rangeAtTheEdges() throws {
        let first = MemorySource.counting(frames: 1_000, channelCount: 2).range(0..<1, name: "memory")
        let chunk = try #require(try first.read(maximumFrames: 100))
        #expect(chunk.position == 0 && Array(chunk.samples(as: Int16.self)) == [0, 1])
        #expect(try first.read(maximumFrames: 100) == nil)
        let last = MemorySource.counting(frames: 1_000, channelCount: 2).range(999..<1_000, name: "memory")
        #expect(last.length == PCMLength(frames: 1, source: .range))
        #expect(try last.remainingSamples() == [1_998, 1_999])
    }

    @Test("an empty range inside the source, at its start or at its end gives no frame and no error",
          arguments: [Int64(0), 500, 1_000])
    func emptyRange(at frame: Int64) throws {
        let range = MemorySource.counting(frames: 1_000).range(frame..<frame, name: "memory")
        #expect(range.length.frames == 0)
        #expect(try range.read(maximumFrames: 10) == nil)
    }

    @Test("a range that starts at the source's end, or past it, is the typed error naming the file and its length")
    func rangeStartsPastEnd() throws {
        for start in [Int64(1_000), 1_001, 5_000] {
            let range = MemorySource.counting(frames: 1_000, sampleRate: 8_000).range(start..<(start + 10), name: "in.wav")
            #expect {
                _ = try range.read(maximumFrames: 10)
            } throws: { error in
                guard let error = error as? ReverseAudioError,
                      case .range(.rangePastEnd("in.wav", start, true, 1_000, 8_000)) = error else { return false }
                return error.description
                    == "in.wav: the range starts at frame \(start), after the end of the file (1000 frames, 0.125 s)"
            }
        }
        // A source that states more frames than it holds: the error names where it really ends.
        let lying = MemorySource.counting(frames: 1_000, sampleRate: 8_000, stating: .frames(2_000)).range(1_500..<1_600, name: "in.wav")
        #expect {
            _ = try lying.read(maximumFrames: 1)
        } throws: { error in
            (error as? ReverseAudioError)?.description
                == "in.wav: the range starts at frame 1500, after the end of the file (1000 frames, 0.125 s)"
        }
        // An empty range past the end is past the end too.
        #expect(throws: ReverseAudioError.self) {
            _ = try MemorySource.counting(frames: 1_000).range(1_500..<1_500, name: "in.wav").read(maximumFrames: 1)
        }
    }

    @Test("a range that ends past the source's end gives the frames there are, then the error says where it ended")
    func rangeEndsPastEnd() throws {
        let range = MemorySource.counting(frames: 1_000, sampleRate: 8_000, chunkFrames: 64).range(900..<1_100, name: "in.wav")
        var samples: [Int16] = []
        #expect {
            while let chunk = try range.read(maximumFrames: 50) { samples += chunk.samples(as: Int16.self) }
        } throws: { error in
            guard case ReverseAudioError.range(.rangePastEnd("in.wav", 1_100, false, 1_000, 8_000)) = error else { return false }
            return true
        }
        #expect(samples == (900..<1_000).map { Int16($0) })
    }

    @Test("a range passes where reading will end to its source as a frame of the source's timeline")
    func rangeSeekEnds() throws {
        let spy = SeekSpy(MemorySource.counting(frames: 1_000))
        let range = spy.range(100..<200, name: "memory")
        _ = try range.read(maximumFrames: 1)
        try range.seek(to: 10, endingAt: 50)
        let toEnd = spy.range(700..<Int64.max, name: "memory")
        _ = try toEnd.read(maximumFrames: 1)
        #expect(spy.seeks.map { $0.frame } == [100, 110, 700])
        #expect(spy.seeks.map { $0.end } == [200, 150, nil])
    }

    @Test("a range seeks on its own timeline: a negative frame reaches its start, and it reads from there")
    func rangeSeekNegative() throws {
        let range = MemorySource.counting(frames: 1_000).range(100..<200, name: "memory")
        #expect(try range.seek(to: -5, endingAt: nil) == SeekedTo(required: -5, reached: 0))
        #expect(try range.remainingSamples() == (100..<200).map { Int16($0) })
    }

    @Test("a range to the end has the length left after its start: none past the end, unknown when the source's is")
    func rangeToEndLength() {
        #expect(MemorySource.counting(frames: 1_000).range(2_000..<Int64.max, name: "m").length.frames == 0)
        #expect(MemorySource.counting(frames: 1_000, stating: .unknown).range(10..<Int64.max, name: "m").length == .unknown)
        #expect(MemorySource.counting(frames: 1_000).range(10..<Int64.max, name: "m").length
            == PCMLength(frames: 990, source: .container))
    }

    // MARK: Sources end to end

    @Test("sources of another sample format, rate or channel count cannot follow; a layout's name alone does not matter")
    func concatenationFormats() throws {
        let first = MemorySource(samples: [1, 2], sampleRate: 44_100, channelCount: 1)
        let others: [MemorySource] = [
            MemorySource(bytes: [0, 0, 0, 0], format: PCMFormat(sampleFormat: .f32, sampleRate: 44_100, channelCount: 1)),
            MemorySource(samples: [1], sampleRate: 48_000, channelCount: 1),
            MemorySource(samples: [1, 2], sampleRate: 44_100, channelCount: 2),
        ]
        for other in others {
            #expect {
                _ = try first.followed(by: [other])
            } throws: { error in
                guard case ReverseAudioError.setting(.sampleBufferMismatch(let reason)) = error else { return false }
                return reason == "\(other.format) cannot follow 44100 Hz, 1 channel, s16"
            }
        }
        let named = MemorySource(bytes: [3, 0], format: PCMFormat(sampleRate: 44_100, channelCount: 1, channelLayoutName: "mono"))
        #expect(try first.followed(by: [named]).remainingSamples() == [1, 2, 3])
    }

    @Test("a seek to every frame, after reading any other, reads on from there across every seam (an empty piece among them)")
    func concatenationSeeks() throws {
        let joined = try MemorySource(samples: [1, 2, 3], chunkFrames: 2)
            .followed(by: [MemorySource(samples: []), MemorySource(samples: [4, 5], chunkFrames: 2), MemorySource(samples: [6, 7, 8, 9], chunkFrames: 2)])
        let all: [Int16] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        for before in Int64(0)...9 {
            for frame in Int64(0)...10 {
                try joined.seek(to: before, endingAt: nil)
                _ = try joined.read(maximumFrames: 1)
                let seeked = try joined.seek(to: frame, endingAt: nil)
                #expect(seeked == SeekedTo(required: frame, reached: min(frame, 9)))
                let rest = Array(all[Int(min(frame, 9))...])
                #expect(try joined.remainingSamples(step: 3) == rest, "seek to \(frame) after reading at \(before)")
            }
        }
    }

    @Test("chunks of sources end to end are positioned on one timeline, none spanning a seam")
    func concatenationPositions() throws {
        let joined = try MemorySource.counting(frames: 10, chunkFrames: 4).followed(by: [MemorySource.counting(frames: 5, chunkFrames: 4)])
        var positions: [Int64] = []
        var counts: [Int] = []
        while let chunk = try joined.read(maximumFrames: 100) {
            positions.append(chunk.position)
            counts.append(chunk.frameCount)
        }
        #expect(positions == [0, 4, 8, 10, 14])
        #expect(counts == [4, 4, 2, 4, 1])
    }

    @Test("the length of sources end to end: their sum, known from ranges when all are; unknown when any is")
    func concatenationLength() throws {
        let format = PCMFormat(sampleRate: 8_000, channelCount: 2)
        let silences = try SilenceSource(frames: 10, format: format).followed(by: [SilenceSource(frames: 0, format: format),
                                                                                      SilenceSource(frames: 7, format: format)])
        #expect(silences.length == PCMLength(frames: 17, source: .range))
        let unknown = try MemorySource.counting(frames: 5).followed(by: [MemorySource.counting(frames: 5, stating: .unknown)])
        #expect(unknown.length == .unknown)
        #expect(try unknown.remainingSamples().count == 10)
    }

    @Test("a seek past a piece of unknown length is the typed error naming that piece; before it, a seek works")
    func concatenationSeekUnknown() throws {
        let joined = try MemorySource.counting(frames: 5).followed(by: [MemorySource.counting(frames: 5, stating: .unknown),
                                                                        MemorySource.counting(frames: 5)])
        #expect(try joined.seek(to: 3, endingAt: nil).reached == 3)
        #expect(try joined.remainingSamples() == [3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4])
        #expect {
            try joined.seek(to: 12, endingAt: nil)
        } throws: { error in
            guard case ReverseAudioError.range(.cannotSeek(_, 12, let reason)) = error else { return false }
            return reason == "the length of piece 2 is unknown"
        }
    }

    @Test("a seek into the last piece needs only the lengths before it: a last piece of unknown length is reached")
    func concatenationSeekIntoUnknownLast() throws {
        let joined = try MemorySource.counting(frames: 5).followed(by: [MemorySource.counting(frames: 5, stating: .unknown)])
        #expect(try joined.seek(to: 7, endingAt: nil).reached == 7)
        #expect(try joined.remainingSamples() == [2, 3, 4])
        // A piece of unknown length before the target still stops the seek, with a message that names what failed.
        let blind = try MemorySource.counting(frames: 5, stating: .unknown).followed(by: [MemorySource.counting(frames: 5)])
        #expect {
            try blind.seek(to: 7, endingAt: nil)
        } throws: { error in
            (error as? ReverseAudioError)?.description == "the concatenation: cannot seek to frame 7: the length of piece 1 is unknown"
        }
    }

    // MARK: Silence

    @Test("silence in each sample format: the format's zero (128 for u8) in every byte, at most 4096 frames a chunk",
          arguments: SampleFormat.allCases)
    func silence(_ sampleFormat: SampleFormat) throws {
        let format = PCMFormat(sampleFormat: sampleFormat, sampleRate: 22_050, channelCount: 3)
        let silence = SilenceSource(frames: 10_000, format: format)
        #expect(silence.format == format && silence.length == PCMLength(frames: 10_000, source: .range))
        var frames = 0
        var positions: [Int64] = []
        while let chunk = try silence.read(maximumFrames: 1 << 16) {
            positions.append(chunk.position)
            frames += chunk.frameCount
            #expect(chunk.bytes.count == chunk.frameCount * format.bytesPerFrame)
            #expect(chunk.bytes.allSatisfy { $0 == (sampleFormat == .u8 ? 128 : 0) })
        }
        #expect(frames == 10_000 && positions == [0, 4_096, 8_192])
    }

    @Test("silence of no frames, or a negative count, is empty; seeks report what was asked and reach within it")
    func silenceEdges() throws {
        let format = PCMFormat(sampleRate: 8_000, channelCount: 1)
        for frames in [Int64(0), -5] {
            let silence = SilenceSource(frames: frames, format: format)
            #expect(silence.length.frames == 0)
            #expect(try silence.read(maximumFrames: 10) == nil)
        }
        let silence = SilenceSource(frames: 100, format: format)
        #expect(try silence.seek(to: 250, endingAt: nil) == SeekedTo(required: 250, reached: 100))
        #expect(try silence.read(maximumFrames: 10) == nil)
        #expect(try silence.seek(to: -3, endingAt: nil) == SeekedTo(required: -3, reached: 0))
        #expect(try silence.seek(to: 97, endingAt: nil).reached == 97)
        let tail = try #require(try silence.read(maximumFrames: 10))
        #expect(tail.position == 97 && tail.frameCount == 3)
    }
}
