import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// Collects progress values from the worker thread.
final class ProgressLog: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var recorded: [(value: Double, outputExists: Bool)] = []
    let output: URL?

    init(output: URL? = nil) {
        self.output = output
    }

    func record(_ value: Double) {
        let exists = output.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        lock.lock()
        recorded.append((value, exists))
        lock.unlock()
    }

    var entries: [(value: Double, outputExists: Bool)] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

/// Progress is true and bounded; cancellation stops promptly and leaves nothing.
@Suite(.serialized, .runsProcesses) struct ProgressAndCancellationTests {
    let longMP3: URL
    let mediumM4A: URL

    init() async throws {
        longMP3 = try await SignalFiles.shared("long.mp3", seconds: 240, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
        mediumM4A = try await SignalFiles.shared("medium.m4a", seconds: 20, codecArguments: ["-c:a", "aac"])
    }

    @Test("0...1, non-decreasing, ~1% steps, 1.0 exactly once and only when the file is in place",
          arguments: [false, true])
    func progressContract(_ reverse: Bool) async throws {
        let folder = try TemporaryDirectory()
        let output = folder.file("out.wav")
        let log = ProgressLog(output: output)
        _ = try await AudioConverter.convert(mediumM4A, to: output, options: ConversionOptions(reverse: reverse),
                                             progress: log.record)
        let values = log.entries.map(\.value)
        #expect(values.allSatisfy { (0...1).contains($0) })
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(values.last == 1.0)
        #expect(values.filter { $0 == 1.0 }.count == 1)
        #expect(log.entries.last?.outputExists == true)
        #expect(log.entries.dropLast().allSatisfy { !$0.outputExists })
        #expect(values.count >= 90 && values.count <= 110, "\(values.count) calls")
        let largestStep = zip(values, values.dropFirst()).map { $1 - $0 }.max() ?? 1
        #expect(largestStep < 0.03)
    }

    @Test("the round trip reports one progress from 0 to 1")
    func roundTripProgress() async throws {
        let folder = try TemporaryDirectory()
        let log = ProgressLog()
        let report = try await RoundTrip.run(mediumM4A, into: folder.url, progress: log.record)
        #expect(report.verified)
        let values = log.entries.map(\.value)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        // Each reversal reports as its chunks are read (a WAV read straight from the file: 64 Ki
        // frames a chunk); the comparison at the end is the one longer step.
        #expect(values.last == 1.0 && values.count >= 40, "\(values.count) calls: \(values)")
        let largestStep = zip(values, values.dropFirst()).map { $1 - $0 }.max() ?? 1
        #expect(largestStep < 0.15, "\(values)")
    }

    /// Runs `work` in a task, cancels it once progress passes 5%, and expects CancellationError.
    /// Past 5% each progress call holds its worker 50 ms: on every core a 4-minute MP3 is
    /// reversed in about 0.1 s, which a cancellation travelling through the task would otherwise
    /// race (and lose on a quiet machine). Promptness is counted in work, which load does not
    /// change: after the cancellation each worker reports at most once or twice more.
    static func cancelMidway(_ work: @escaping @Sendable (@escaping ProgressHandler) async throws -> Void) async throws {
        let (started, continuation) = AsyncStream<Void>.makeStream()
        let reports = ReportCounter()
        let task = Task {
            try await work { fraction in
                guard fraction > 0.05 else { return }
                reports.count()
                continuation.yield()
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        for await _ in started { break }
        reports.markCancellation()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let bound = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        #expect(reports.sinceCancellation <= bound,
                "\(reports.sinceCancellation) progress reports after the cancellation (at most \(bound)): the work went on")
    }

    @Test("cancelling a conversion removes the partial output", arguments: [false, true])
    func cancelConversion(_ reverse: Bool) async throws {
        let folder = try TemporaryDirectory()
        let output = folder.file("out.wav")
        try await Self.cancelMidway { progress in
            _ = try await AudioConverter.convert(longMP3, to: output, options: ConversionOptions(reverse: reverse),
                                                 progress: progress)
        }
        #expect(folder.contents.isEmpty)
    }

    @Test("cancelling a round trip leaves nothing")
    func cancelRoundTrip() async throws {
        let folder = try TemporaryDirectory()
        try await Self.cancelMidway { progress in
            _ = try await RoundTrip.run(longMP3, into: folder.url, progress: progress)
        }
        #expect(folder.contents.isEmpty)
    }

    @Test("cancelling the consumer of the seed's block sequence stops decoding")
    func cancelSequences() async throws {
        let reversing = Task {
            var blocks = 0
            for try await _ in AudioReverser().reversedBlocks(of: longMP3, frames: 4096) { blocks += 1 }
            return blocks
        }
        try await Task.sleep(for: .milliseconds(300))
        reversing.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reversing.value }

        let consuming = Task {
            var frames = 0
            for try await block in AudioReverser().reversedBlocks(of: longMP3, frames: 4096) {
                frames += block.frameCount
                if frames > 44_100 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return frames
        }
        await #expect(throws: CancellationError.self) { _ = try await consuming.value }
    }

    @Test("the seed-shaped callback API reports success, failure and cancellation")
    func seedAPI() async throws {
        let folder = try TemporaryDirectory()
        let reverser = AudioReverser()
        let log = ProgressLog()
        let success: (Bool, (any Error)?) = await withCheckedContinuation { continuation in
            reverser.reverseAudio(url: mediumM4A, destinationURL: folder.file("REVERSED.wav"),
                                  progress: { log.record($0) },
                                  completion: { continuation.resume(returning: ($0, $1)) })
        }
        #expect(success.0 && success.1 == nil)
        #expect(log.entries.last?.value == 1.0)
        #expect(try await FFmpegOracle.samples(of: folder.file("REVERSED.wav")) == FFmpegOracle.reversedSamples(of: mediumM4A))

        let failure: (Bool, (any Error)?) = await withCheckedContinuation { continuation in
            reverser.reverseAudio(url: Fixtures.url("bad-text.mp3"), destinationURL: folder.file("bad.wav"),
                                  progress: { _ in }, completion: { continuation.resume(returning: ($0, $1)) })
        }
        #expect(!failure.0 && (failure.1 as? ReverseAudioError)?.description.contains("bad-text.mp3") == true)

        let cancelled: (Bool, (any Error)?) = await withCheckedContinuation { continuation in
            let holder = FlagHolder()
            holder.flag = reverser.reverseAudio(url: longMP3, destinationURL: folder.file("long.wav"),
                                                progress: { if $0 > 0.05 { holder.flag?.cancel() } },
                                                completion: { continuation.resume(returning: ($0, $1)) })
        }
        #expect(!cancelled.0 && cancelled.1 is CancellationError)
        #expect(folder.contents == ["REVERSED.wav"])

        // The async form returns once the file is in place.
        let result = try await reverser.reverseAudio(url: mediumM4A, destinationURL: folder.file("again.wav"))
        #expect(result.reversed && FileManager.default.fileExists(atPath: folder.file("again.wav").path))
        #expect(try await FFmpegOracle.samples(of: folder.file("again.wav")) == FFmpegOracle.reversedSamples(of: mediumM4A))
    }
}

/// Lets a progress callback reach the flag returned by the call that started it.
final class FlagHolder: @unchecked Sendable {
    // @unchecked: set once before the work can report progress that reads it.
    var flag: CancellationFlag?
}

/// Progress reports counted, and those made after a cancellation was asked for.
private final class ReportCounter: @unchecked Sendable {
    // @unchecked: the counts are only touched under `lock`.
    private let lock = NSLock()
    private var total = 0
    private var atCancellation: Int?

    func count() { lock.withLock { total += 1 } }
    func markCancellation() { lock.withLock { atCancellation = total } }
    var sinceCancellation: Int { lock.withLock { total - (atCancellation ?? total) } }
}
