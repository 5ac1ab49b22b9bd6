import FFmpeg
import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// The video reversal's parts: the keyframe index, the timeline, the memory limit, and the
/// library API (results, cancellation, option checks).
@Suite(.runsProcesses) struct VideoReverserTests {
    @Test("the timeline mirrors variable frame durations and starts at 0")
    func reversedTimeline() {
        // Frames at 0, 10, 30, 35, ending at 50 (the last lasts 15).
        var timeline = ReversedTimeline(end: 50)
        let placed = [35, 30, 10, 0].map { timeline.place(Int64($0))! }
        #expect(placed.map(\.timestamp) == [0, 15, 20, 40])
        #expect(placed.map(\.duration) == [15, 5, 20, 10])
        #expect(timeline.elapsed == 50)
        #expect(timeline.place(5) == nil, "a frame later than the one placed before cannot be placed")
        // A boomerang's reversed half: after 50 of forward frames, the turn frame (35) left out.
        var second = ReversedTimeline(end: 35, base: 50)
        #expect(second.place(35) == nil)
        #expect(second.place(30)! == (50, 5))
        #expect(second.place(10)! == (55, 20))
    }

    @Test("the forward timeline gives each frame the gap to the next, and the last its own duration")
    func forwardTimeline() {
        var timeline = ForwardTimeline<String>(origin: 100)
        #expect(timeline.add("a", at: 100) == nil)
        let first = timeline.add("b", at: 112)
        #expect(first?.item == "a" && first?.timestamp == 0 && first?.duration == 12)
        let finished = timeline.finish(lastDuration: 7)
        #expect(finished.placed?.item == "b" && finished.placed?.timestamp == 12 && finished.placed?.duration == 7)
        #expect(finished.end == 19)
    }

    @Test("the keyframe index of an open GOP runs each group through the next keyframe's leading pictures")
    func openGOPIndex() throws {
        let url = Fixtures.video("h264-opengop.mkv")
        let source = try VideoSource(url: url, isCancelled: { false })
        let index = try KeyframeIndex.scan(source.demuxer, stream: source.stream.index, isCancelled: { false },
                                           timeBase: source.stream.timeBase)
        #expect(index.frameCount == 90 && index.groups.count == 6)
        #expect(index.groups.map(\.frameCount) == [15, 15, 15, 15, 15, 15])
        // Every group but the last decodes more packets than it shows: the next keyframe and the
        // B-frames after it that are shown before it.
        #expect(index.groups.dropLast().allSatisfy { $0.packetCount > $0.frameCount }, "\(index.groups.map(\.packetCount))")
        #expect(index.groups.last.map { $0.packetCount >= $0.frameCount } == true)
        #expect(zip(index.groups, index.groups.dropFirst()).allSatisfy { $0.end == $1.start })
    }

    @Test("neighbouring groups that fit in memory together are decoded in one run, through their last packet")
    func decodingRuns() throws {
        let url = Fixtures.video("h264-30fps-bframes-aac.mp4")
        let source = try VideoSource(url: url, isCancelled: { false })
        let index = try KeyframeIndex.scan(source.demuxer, stream: source.stream.index, isCancelled: { false },
                                           timeBase: source.stream.timeBase)
        #expect(index.groups.map(\.frameCount) == [12, 12, 12, 12, 12])
        let runs = KeyframeIndex.decodingRuns(of: index.groups, memoryLimit: 30 * 1000, pictureBytes: 1000)
        #expect(runs.map(\.frameCount) == [24, 24, 12])
        #expect(runs.map(\.start) == [index.groups[3].start, index.groups[1].start, index.groups[0].start])
        #expect(runs.map(\.end) == [nil, index.groups[3].start, index.groups[1].start])
        let last = index.groups[4]
        #expect(runs[0].packetCount == last.keyOrdinal + last.packetCount - index.groups[3].keyOrdinal)
        // Every group alone when only one picture fits.
        #expect(KeyframeIndex.decodingRuns(of: index.groups, memoryLimit: 0, pictureBytes: 1000).count == 5)
    }

    @Test("a short-GOP video is decoded in few runs and comes out exact")
    func fewRuns() async throws {
        let input = Fixtures.video("h264-30fps-bframes-aac.mp4")
        let folder = try TemporaryDirectory()
        let output = folder.file("reversed.mkv")
        let result = try await VideoReverser.reverse(input, to: output, options: VideoOptions(quality: .lossless))
        #expect(result.groups == 5 && result.decodeRuns == 2 && result.spilledFrames == 0)
        let original = try await VideoOracle.pictures(of: input)
        #expect(try await VideoOracle.pictures(of: output).map(\.md5) == original.map(\.md5).reversed())
    }

    @Test("the reversed AAC keeps the audio stream's own bit rate, not the container's total (pictures included)")
    func audioBitRateIsTheStreams() async throws {
        let input = Fixtures.video("h264-30fps-bframes-aac.mp4")  // AAC at 49 kb/s in a 122 kb/s file
        let folder = try TemporaryDirectory()
        let output = folder.file("reversed.mp4")
        let result = try await VideoReverser.reverse(input, to: output, options: VideoOptions(quality: .crf(30), preset: "ultrafast"))
        #expect(result.audio.contains("AAC 49 kb/s"), "\(result.audio)")
        let audio = try #require(try await VideoOracle.streams(of: output).first { $0["codec_type"] as? String == "audio" })
        let rate = try #require(Int(audio["bit_rate"] as? String ?? ""))
        #expect(rate < 80_000, "the output's AAC runs at \(rate) b/s")
    }

    @Test("with no memory at all every picture goes through the temporary file, and the result is the same")
    func everythingSpilled() async throws {
        let input = Fixtures.video("h264-30fps-bframes-aac.mp4")
        let folder = try TemporaryDirectory()
        let output = folder.file("reversed.mkv")
        let result = try await VideoReverser.reverse(input, to: output, options: VideoOptions(quality: .lossless, memoryLimit: 0))
        #expect(result.inputFrames == 60 && result.outputFrames == 60 && result.spilledFrames == 60)
        #expect(result.peakPictureBytes == 0)
        // Two buffers (one being decoded, one being encoded), each holding at most one group's overflow.
        let group = Int64(result.largestGroup * 96 * 64 * 3 / 2)
        #expect(result.temporaryBytes > group && result.temporaryBytes <= 2 * group)
        #expect(result.groups == 5 && result.largestGroup == 12)
        let original = try await VideoOracle.pictures(of: input)
        #expect(try await VideoOracle.pictures(of: output).map(\.md5) == original.map(\.md5).reversed())
        #expect(folder.contents == ["reversed.mkv"])
    }

    @Test("the memory limit bounds the pictures held: with room for a few, the rest spills")
    func partlySpilled() throws {
        let input = Fixtures.video("h264-gop250-noaudio.mp4")
        let folder = try TemporaryDirectory()
        let limit = 200_000
        let result = try VideoReverser.reverse(input, to: folder.file("out.mp4"),
                                               options: VideoOptions(preset: "ultrafast", memoryLimit: limit),
                                               cancellation: CancellationFlag(), progress: nil)
        #expect(result.peakPictureBytes <= limit && result.peakPictureBytes > limit / 2)
        #expect(result.spilledFrames > 0 && result.spilledFrames < result.inputFrames)
        #expect(result.largestGroup == 250 && result.outputFrames == 300)
    }

    @Test("cancelling the task stops the work, removes the partial output and throws CancellationError")
    func cancel() async throws {
        let folder = try TemporaryDirectory()
        let input = folder.file("long.mkv")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=20",
                                                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "100", input.path])
        #expect(made.status == 0)
        let output = folder.file("out.mp4")
        // Cancelled from the progress callback, on the reversal's own thread: the test does not
        // depend on Swift's cooperative pool getting to it while other suites keep it busy.
        let canceller = TaskCanceller()
        let task = Task {
            try await VideoReverser.reverse(input, to: output, options: VideoOptions(preset: "medium", memoryLimit: 1 << 20),
                                            progress: { fraction in
                                                canceller.record(fraction)
                                                if fraction > 0.05 { canceller.cancel() }
                                            })
        }
        canceller.set(task)
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        // Prompt in work done, which load does not change: the reversal stops within a picture or
        // two, so progress moves at most one ~1% step past the cancellation (500 pictures here).
        let (atCancel, last) = canceller.progressAroundCancel
        #expect(atCancel != nil && last - (atCancel ?? 0) <= 0.015, "progress went on from \(atCancel ?? -1) to \(last)")
        #expect(folder.contents == ["long.mkv"], "left behind: \(folder.contents)")
    }

    @Test("options are checked before any work", arguments: [
        VideoOptions(quality: .crf(-1)), VideoOptions(preset: "fastest"), VideoOptions(memoryLimit: -1), VideoOptions(audioBitRate: 1000),
    ])
    func invalidOptions(_ options: VideoOptions) throws {
        let folder = try TemporaryDirectory()
        #expect(throws: ReverseAudioError.self) {
            _ = try VideoReverser.reverse(Fixtures.video("h264-30fps-bframes-aac.mp4"), to: folder.file("out.mp4"),
                                          options: options, cancellation: CancellationFlag(), progress: nil)
        }
        #expect(folder.contents.isEmpty)
    }

    @Test("errors name the file: no video stream, not a video, a pipe")
    func errors() throws {
        let folder = try TemporaryDirectory()
        func failure(_ input: URL) -> ReverseAudioError? {
            do {
                _ = try VideoReverser.reverse(input, to: folder.file("out.mp4"), options: VideoOptions(),
                                              cancellation: CancellationFlag(), progress: nil)
                return nil
            } catch {
                return error as? ReverseAudioError
            }
        }
        let audio = Fixtures.url("flac-s16-2ch-44100.flac")
        #expect(failure(audio) == .input(.noVideoStream(path: audio.path, streams: ["1 audio stream"])))
        let text = Fixtures.url("bad-text.mp3")
        if case .input(.notVideo(let path, _)) = failure(text) { #expect(path == text.path) } else { Issue.record("not .input(.notVideo)") }
        #expect(failure(URL(fileURLWithPath: "/dev/stdin"))?.description.contains("not a pipe") == true)
        #expect(folder.contents.isEmpty)
    }
}

/// Cancels a task once asked, whether the task is known yet or not.
private final class TaskCanceller: @unchecked Sendable {
    // @unchecked: the state is only touched under `lock`.
    private let lock = NSLock()
    private var task: Task<VideoResult, any Error>?
    private var requested: Date?

    func set(_ task: Task<VideoResult, any Error>) {
        lock.lock()
        self.task = task
        let cancelNow = requested != nil
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        lock.lock()
        if requested == nil {
            requested = Date()
            fractionAtCancel = lastFraction
        }
        let task = self.task
        lock.unlock()
        task?.cancel()
    }

    private var fractionAtCancel: Double?
    private var lastFraction = 0.0

    /// Notes a progress report (the reversal's thread).
    func record(_ fraction: Double) {
        lock.lock()
        lastFraction = max(lastFraction, fraction)
        lock.unlock()
    }

    /// The progress when cancellation was asked for, and the furthest reported at all.
    var progressAroundCancel: (atCancel: Double?, last: Double) {
        lock.lock()
        defer { lock.unlock() }
        return (fractionAtCancel, lastFraction)
    }
}
