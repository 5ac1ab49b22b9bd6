import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
import ReverseAudioTesting

/// A WAV file of ``MemorySource/counting(frames:channelCount:sampleRate:stating:chunkFrames:)``
/// frames in a fresh temporary folder (removed with this value): every sample tells its frame,
/// so what playback gives is checked by value. The renderer reads files only (its chunk cache
/// opens a URL), so this is how counting frames reach it; PCM WAV decodes bit-exact.
struct CountingWAV {
    let directory: TemporaryDirectory
    let url: URL
    let frames: Int
    let channels: Int

    init(frames: Int, channels: Int = 2, sampleRate: Int = 44_100) throws {
        directory = try TemporaryDirectory()
        url = directory.file("counting.wav")
        self.frames = frames
        self.channels = channels
        let source = MemorySource.counting(frames: frames, channelCount: channels, sampleRate: sampleRate)
        var pcm: [UInt8] = []
        while let chunk = try source.read(maximumFrames: 4096) { pcm += chunk.bytes }
        var header: [UInt8] = []
        func text(_ value: String) { header += Array(value.utf8) }
        func little32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header += $0 } }
        func little16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header += $0 } }
        text("RIFF"); little32(36 + pcm.count); text("WAVE")
        text("fmt "); little32(16); little16(1); little16(channels); little32(sampleRate)
        little32(sampleRate * channels * 2); little16(channels * 2); little16(16)
        text("data"); little32(pcm.count)
        try Data(header + pcm).write(to: url)
    }

    /// The samples of frames `indices`, in that order, as the counting source holds them.
    func expected<Frames: Sequence<Int>>(_ indices: Frames) -> [Int16] {
        indices.flatMap { frame in (0..<channels).map { Int16(truncatingIfNeeded: frame * channels + $0) } }
    }

    /// Frames `first` down to `last`, both included.
    func expected(down first: Int, to last: Int) -> [Int16] {
        expected(stride(from: first, through: last, by: -1))
    }
}

extension PlaybackRenderer {
    /// Renders calls of `period` frames (fewer for the last, to stop at `limit`) until one
    /// gives nothing or `limit` frames are out; the samples, for an `.s16` format.
    func renderSamples(period: Int, limit: Int = .max) throws -> [Int16] {
        var samples: [Int16] = []
        var buffer = [Int16](repeating: 0, count: period * format.channelCount)
        var total = 0
        while total < limit {
            let wanted = min(period, limit - total)
            let frames = try buffer.withUnsafeMutableBytes { try render(into: $0, frameCount: wanted) }
            if frames == 0 { break }
            samples += buffer[0..<(frames * format.channelCount)]
            total += frames
        }
        return samples
    }
}

/// The playback cursor's rules alone (no file, no thread): frames emitted forwards and
/// backwards, the loop rule on each side of the region, clamping, pausing. Everything playback
/// renders follows from these, so an off-by-one here is a wrong frame heard.
@Suite struct PlaybackStateInProcessTests {
    static func emitted(_ state: inout PlaybackState, count: Int) -> [Int64?] {
        (0..<count).map { _ in state.advance() }
    }

    @Test("forward emits p then moves on and ends at N; backwards emits p − 1 and ends at 0")
    func advanceBothWays() {
        var forward = PlaybackState(frameCount: 3, position: 1)
        #expect(Self.emitted(&forward, count: 3) == [1, 2, nil])
        #expect(forward.position == 3)
        var backward = PlaybackState(frameCount: 3, position: 2, direction: .reverse)
        #expect(Self.emitted(&backward, count: 3) == [1, 0, nil])
        #expect(backward.position == 0)
        // One frame: forward from 0 and backwards from 1 both give frame 0 once.
        var one = PlaybackState(frameCount: 1, position: 0)
        #expect(Self.emitted(&one, count: 2) == [0, nil])
        one.direction = .reverse
        #expect(Self.emitted(&one, count: 2) == [0, nil])
    }

    @Test("a position given or sought outside the file is clamped to 0…N")
    func clamping() {
        #expect(PlaybackState(frameCount: 10, position: -4).position == 0)
        #expect(PlaybackState(frameCount: 10, position: 99).position == 10)
        var state = PlaybackState(frameCount: 10, position: 5)
        state.seek(to: 11)
        #expect(state.position == 10)
        #expect(state.advance() == nil, "forward at N is the end")
        state.seek(to: -1)
        #expect(state.position == 0)
    }

    @Test("forward with a loop: a cursor before the region plays into it; at R (or past it) it jumps to L")
    func forwardLoop() {
        var state = PlaybackState(frameCount: 100, position: 3)
        state.setLoop(5..<7)
        #expect(Self.emitted(&state, count: 7) == [3, 4, 5, 6, 5, 6, 5])
        var past = PlaybackState(frameCount: 100, position: 50)
        past.setLoop(5..<7)
        #expect(Self.emitted(&past, count: 3) == [5, 6, 5], "one past the far end wraps at once")
    }

    @Test("backwards with a loop: a cursor above the region plays down into it; at L it jumps to R")
    func reverseLoop() {
        var state = PlaybackState(frameCount: 100, position: 9, direction: .reverse)
        state.setLoop(5..<7)
        #expect(Self.emitted(&state, count: 7) == [8, 7, 6, 5, 6, 5, 6])
        var below = PlaybackState(frameCount: 100, position: 2, direction: .reverse)
        below.setLoop(5..<7)
        #expect(Self.emitted(&below, count: 3) == [6, 5, 6], "a cursor at or below L wraps at once")
    }

    @Test("a loop is clamped to the file; an empty one, or one outside it, is no loop; shortening clamps both")
    func loopClampingAndShortening() {
        var state = PlaybackState(frameCount: 100, position: 90)
        state.setLoop(-5..<20)
        #expect(state.loop == 0..<20)
        state.setLoop(80..<500)
        #expect(state.loop == 80..<100)
        state.setLoop(30..<30)
        #expect(state.loop == nil)
        state.setLoop(150..<200)
        #expect(state.loop == nil)
        // The file decodes shorter than it said: cursor and loop follow.
        state.setLoop(80..<100)
        state.shorten(to: 85)
        #expect(state.frameCount == 85 && state.position == 85 && state.loop == 80..<85)
        state.shorten(to: 60)
        #expect(state.loop == nil && state.position == 60)
        state.shorten(to: 70)
        #expect(state.frameCount == 60, "shortening never lengthens")
    }

    @Test("paused, nothing is emitted and the cursor stays")
    func paused() {
        var state = PlaybackState(frameCount: 10, position: 4)
        state.isPlaying = false
        #expect(state.advance() == nil)
        #expect(state.position == 4)
        state.isPlaying = true
        #expect(state.advance() == 4)
    }
}

/// What an `AudioPlayer`'s threads share, on its own: commands handed over once and in order,
/// the stop request, a start that happens once, and the count of running threads.
@Suite struct PlayerControlInProcessTests {
    static func control() -> PlayerControl {
        PlayerControl(status: PlaybackStatus(state: PlaybackState(frameCount: 100, position: 0), framesRendered: 0,
                                             loopWraps: 0, underruns: 0, sampleRate: 44_100))
    }

    @Test("commands are taken once, in the order sent; a stop is reported with them")
    func commandsInOrder() {
        let control = Self.control()
        control.send(.pause)
        control.send(.seek(toFrame: 7))
        control.send(.toggleDirection)
        let first = control.take()
        #expect(first.commands == [.pause, .seek(toFrame: 7), .toggleDirection] && !first.stop)
        #expect(control.take().commands.isEmpty, "taken commands are gone")
        control.send(.play)
        control.requestStop()
        let last = control.take()
        #expect(last.commands == [.play] && last.stop && control.isStopping)
    }

    @Test("a player starts once, and never after a stop")
    func startsOnce() {
        let control = Self.control()
        #expect(control.markStarted(threads: 2))
        #expect(!control.markStarted(threads: 2))
        control.threadFinished()
        control.threadFinished()
        control.waitForThreads()
        let stopped = Self.control()
        stopped.requestStop()
        #expect(!stopped.markStarted(threads: 1))
        stopped.waitForThreads()
    }

    @Test("waiting for the threads returns once every started one has finished")
    func waitsForThreads() async {
        let control = Self.control()
        #expect(control.markStarted(threads: 2))
        let finishedBoth = AsyncFlag()
        let order = OrderLog()
        Thread.detachNewThread {
            control.waitForThreads()
            order.append("waited")
            finishedBoth.raise()
        }
        order.append("first")
        control.threadFinished()
        order.append("second")
        control.threadFinished()
        #expect(await finishedBoth.wait(upTo: 30))
        #expect(order.entries == ["first", "second", "waited"])
    }

    @Test("a command sent from another thread wakes a wait for one; the last status published is read")
    func sendWakesWaiter() async {
        let control = Self.control()
        let woke = AsyncFlag()
        Thread.detachNewThread {
            // A long timeout: only the command can end this wait within the test.
            control.waitForCommand(timeout: 600)
            woke.raise()
        }
        control.send(.stop)
        #expect(await woke.wait(upTo: 60))
        let status = PlaybackStatus(state: PlaybackState(frameCount: 100, position: 42, direction: .reverse),
                                    framesRendered: 58, loopWraps: 1, underruns: 2, sampleRate: 44_100)
        control.publish(status)
        #expect(control.status == status)
    }
}

/// A log written from several threads, in the order the writes happened.
final class OrderLog: @unchecked Sendable {
    // @unchecked: `log` only under `lock`.
    private let lock = NSLock()
    private var log: [String] = []

    func append(_ entry: String) { lock.withLock { log.append(entry) } }
    var entries: [String] { lock.withLock { log } }
}

/// The small values of playback: the window the effects read a render call's frames through,
/// a decoded chunk being filled, the status's conversions.
@Suite struct PlaybackPartsInProcessTests {
    @Test("a rendered window lends its frames once, at their output position, at most as many as asked")
    func renderedWindow() throws {
        let format = PCMFormat(sampleFormat: .s16, sampleRate: 8_000, channelCount: 2)
        let window = RenderedWindow(format: format)
        #expect(try window.read(maximumFrames: 10) == nil, "nothing lent yet")
        let samples: [Int16] = [10, 11, 20, 21, 30, 31]
        try samples.withUnsafeBytes { bytes in
            window.lend(bytes, frames: 3, at: 500, endingAt: 900)
            #expect(window.length.frames == 900)
            #expect(try window.seek(to: 0, endingAt: nil).reached == 500, "it stays where the output is")
            let chunk = try #require(try window.read(maximumFrames: 2))
            #expect(chunk.frameCount == 2 && chunk.position == 500)
            #expect(Array(chunk.bytes.bindMemory(to: Int16.self)) == [10, 11, 20, 21])
            #expect(try window.read(maximumFrames: 2) == nil, "lent once")
            window.lend(bytes, frames: 3, at: 503, endingAt: nil)
            #expect(window.length.frames == nil, "a loop playing: no end known")
            #expect(try window.read(maximumFrames: 99)?.frameCount == 3)
        }
    }

    @Test("a decoded chunk takes whole frames only, up to its size; truncating ends it where it is filled")
    func decodedChunk() {
        let chunk = DecodedChunk(index: 3, frameCount: 4, bytesPerFrame: 4)
        #expect(chunk.bytes.isEmpty && !chunk.isFull)
        // Ten bytes: two whole frames and half of one.
        #expect([UInt8](0..<10).withUnsafeBytes { chunk.append($0) } == 8)
        #expect(chunk.filledFrames == 2 && Array(chunk.bytes) == [UInt8](0..<8))
        // Twelve more: only two frames fit.
        #expect([UInt8](100..<112).withUnsafeBytes { chunk.append($0) } == 8)
        #expect(chunk.isFull && Array(chunk.bytes) == [UInt8](0..<8) + [UInt8](100..<108))
        #expect([UInt8](0..<4).withUnsafeBytes { chunk.append($0) } == 0, "a full chunk takes nothing")
        let short = DecodedChunk(index: 0, frameCount: 4, bytesPerFrame: 2)
        _ = [UInt8](0..<2).withUnsafeBytes { short.append($0) }
        short.truncate()
        #expect(short.isFull && short.frameCount == 1 && short.bytes.count == 2)
    }

    @Test("the status turns the cursor and the length into seconds, and survives a rate of 0")
    func statusSeconds() {
        let state = PlaybackState(frameCount: 88_200, position: 22_050)
        let status = PlaybackStatus(state: state, framesRendered: 0, loopWraps: 0, underruns: 0, sampleRate: 44_100)
        #expect(status.seconds == 0.5 && status.duration == 2)
        let noRate = PlaybackStatus(state: state, framesRendered: 0, loopWraps: 0, underruns: 0, sampleRate: 0)
        #expect(noRate.seconds.isFinite && noRate.duration.isFinite)
    }
}

/// The renderer on a file of counting frames (FFmpeg in process, no other process): every frame
/// it gives, forwards, backwards, in a loop either way, across direction changes, seeks,
/// pauses and the file's end, compared with the frames that construction says, one by one.
/// Chunks hold 16384 frames here, so the file's 40000 cross two chunk boundaries.
@Suite struct PlaybackRendererInProcessTests {
    static let frames = 40_000

    @Test("forwards: every frame in order across chunk boundaries, a short last call, then nothing")
    func forwards() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url)
        #expect(renderer.frameCount == Int64(Self.frames) && renderer.format.channelCount == 2)
        // 90 calls of 441 frames, then one of 310.
        #expect(try renderer.renderSamples(period: 441) == file.expected(0..<Self.frames))
        #expect(renderer.isFinished && renderer.framesRendered == Int64(Self.frames) && renderer.state.position == Int64(Self.frames))
        #expect(try renderer.renderSamples(period: 441).isEmpty)
    }

    @Test("backwards: the last frame first, down to frame 0")
    func backwards() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url, direction: .reverse)
        #expect(try renderer.renderSamples(period: 1000) == file.expected(down: Self.frames - 1, to: 0))
        #expect(renderer.isFinished && renderer.state.position == 0)
    }

    @Test("from a frame: forwards it is the first heard, backwards the one before it is")
    func fromFrame() throws {
        let file = try CountingWAV(frames: Self.frames)
        let forward = try PlaybackRenderer(url: file.url, from: 20_000)
        #expect(try forward.renderSamples(period: 777) == file.expected(20_000..<Self.frames))
        let backward = try PlaybackRenderer(url: file.url, direction: .reverse, from: 20_000)
        #expect(try backward.renderSamples(period: 777) == file.expected(down: 19_999, to: 0))
    }

    @Test("a loop [L, R) forwards across a chunk boundary: up to R, then L..<R again and again")
    func loopForwards() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url, loop: 16_000..<17_000)
        let played = try renderer.renderSamples(period: 441, limit: 17_000 + 3 * 1000)
        let once = file.expected(16_000..<17_000)
        #expect(played == file.expected(0..<17_000) + once + once + once)
        #expect(renderer.loopWraps == 3 && !renderer.isFinished)
    }

    @Test("a loop [L, R) backwards: down to L, then R − 1 down to L again and again")
    func loopBackwards() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url, direction: .reverse, loop: 16_000..<17_000)
        let played = try renderer.renderSamples(period: 441, limit: (Self.frames - 16_000) + 3 * 1000)
        let once = file.expected(down: 16_999, to: 16_000)
        #expect(played == file.expected(down: Self.frames - 1, to: 16_000) + once + once + once)
        #expect(renderer.loopWraps == 3)
    }

    @Test("a loop one frame long repeats that frame, counting every wrap")
    func oneFrameLoop() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url, loop: 5..<6)
        #expect(try renderer.renderSamples(period: 8, limit: 20) == file.expected(Array(0..<6) + Array(repeating: 5, count: 14)))
        #expect(renderer.loopWraps == 14)
    }

    @Test("switching the loop off mid-loop plays on to the end from where the cursor is")
    func loopOff() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url, loop: 100..<200)
        var played = try renderer.renderSamples(period: 50, limit: 350)
        renderer.apply(.loop(nil))
        played += try renderer.renderSamples(period: 4096)
        #expect(played == file.expected(Array(0..<200) + Array(100..<200) + Array(100..<Self.frames)))
        // Wrapped at output frames 200 and 300: 350 frames hold the loop's second pass and half a third.
        #expect(renderer.isFinished && renderer.loopWraps == 2)
    }

    @Test("a direction change between render calls turns at that frame: forwards to T, then T − 1 down to 0")
    func toggleBetweenCalls() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url)
        var played = try renderer.renderSamples(period: 1000, limit: 3000)
        renderer.apply(.toggleDirection)
        played += try renderer.renderSamples(period: 1000)
        #expect(played == file.expected(0..<3000) + file.expected(down: 2999, to: 0))
        #expect(renderer.framesRendered == 6000 && renderer.state.direction == .reverse)
    }

    @Test("commands scheduled on the output timeline apply at their exact frame, inside a render call")
    func scheduledMidCall() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url)
        renderer.schedule(.seek(toFrame: 30_000), atOutputFrame: 15_000)
        renderer.schedule(.setDirection(.reverse), atOutputFrame: 12_345)
        renderer.schedule(.setDirection(.reverse), atOutputFrame: 14_000)
        let played = try renderer.renderSamples(period: 1000)
        // Forwards to 12 345, backwards for 2 655 frames (to 9 690), then from 30 000 down to 0.
        #expect(played == file.expected(0..<12_345) + file.expected(down: 12_344, to: 9_690) + file.expected(down: 29_999, to: 0))
        #expect(renderer.framesRendered == 45_000)
    }

    @Test("a seek moves the cursor; one past either end is clamped, and playing on from there ends at once")
    func seeks() throws {
        let file = try CountingWAV(frames: Self.frames)
        let near = try PlaybackRenderer(url: file.url)
        near.apply(.seek(toFrame: Int64(Self.frames - 10)))
        #expect(try near.renderSamples(period: 441) == file.expected((Self.frames - 10)..<Self.frames))
        let past = try PlaybackRenderer(url: file.url)
        past.apply(.seek(toFrame: 1_000_000))
        #expect(try past.renderSamples(period: 441).isEmpty)
        #expect(past.isFinished && past.state.position == Int64(Self.frames))
        let below = try PlaybackRenderer(url: file.url, direction: .reverse, from: 100)
        below.apply(.seek(toFrame: -5))
        #expect(try below.renderSamples(period: 441).isEmpty && below.isFinished && below.state.position == 0)
    }

    @Test("paused, a render gives nothing and playback has not ended; read runs a scheduled play at once")
    func pauseAndScheduledPlay() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url)
        _ = try renderer.renderSamples(period: 1000, limit: 1000)
        renderer.apply(.pause)
        #expect(try renderer.renderSamples(period: 1000).isEmpty)
        #expect(!renderer.isFinished && !renderer.state.isPlaying && renderer.state.position == 1000)
        #expect(try renderer.read(maximumFrames: 100) == nil, "paused with nothing to resume it: nothing more comes")
        // The output timeline stands still while paused, so a play scheduled later runs now.
        renderer.schedule(.play, atOutputFrame: 5_000)
        let chunk = try #require(try renderer.read(maximumFrames: 100))
        #expect(chunk.position == 1000 && chunk.frameCount == 100)
        #expect(Array(chunk.bytes.bindMemory(to: Int16.self)) == file.expected(1000..<1100))
    }

    @Test("a stop command ends playback at the next render call")
    func stopCommand() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url, loop: 0..<100)
        _ = try renderer.renderSamples(period: 64, limit: 500)
        renderer.apply(.stop)
        #expect(try renderer.renderSamples(period: 64).isEmpty)
        #expect(renderer.isFinished && renderer.framesRendered == 500)
        #expect(try renderer.read(maximumFrames: 10) == nil)
    }

    @Test("a buffer too small for the frames asked for is a typed error, and renders nothing")
    func bufferTooSmall() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url)
        var buffer = [Int16](repeating: 0, count: 2 * 10)
        let error = #expect(throws: ReverseAudioError.self) {
            try buffer.withUnsafeMutableBytes { _ = try renderer.render(into: $0, frameCount: 11) }
        }
        guard case .setting(.sampleBufferMismatch(let reason)) = error else {
            Issue.record("not sampleBufferMismatch: \(String(describing: error))")
            return
        }
        #expect(reason.contains("40 bytes") && reason.contains("11 frames"))
        #expect(renderer.framesRendered == 0)
        #expect(try renderer.renderSamples(period: 3, limit: 3) == file.expected(0..<3))
    }

    @Test("as a source, the renderer stays where its output is: a seek elsewhere is a typed error")
    func sourceSeek() throws {
        let file = try CountingWAV(frames: Self.frames)
        let renderer = try PlaybackRenderer(url: file.url)
        #expect(try renderer.seek(to: 0, endingAt: nil).reached == 0)
        _ = try renderer.renderSamples(period: 100, limit: 100)
        #expect(try renderer.seek(to: 100, endingAt: nil).reached == 100)
        let error = #expect(throws: ReverseAudioError.self) { try renderer.seek(to: 0, endingAt: nil) }
        guard case .range(.cannotSeek(_, let frame, _)) = error else {
            Issue.record("not cannotSeek: \(String(describing: error))")
            return
        }
        #expect(frame == 0 && renderer.length == .unknown)
    }

    @Test("rendered to a file backwards, the file holds the frames reversed")
    func renderToFileBackwards() throws {
        let file = try CountingWAV(frames: Self.frames)
        let output = file.directory.file("reversed.wav")
        let written = try PlaybackRenderer(url: file.url, direction: .reverse).render(toFile: output)
        #expect(written == Int64(Self.frames))
        #expect(try PlaybackRenderer(url: output).renderSamples(period: 4096) == file.expected(down: Self.frames - 1, to: 0))
    }

    @Test("a loop rendered to a file needs a bound: without one it is refused before any file exists; with one it is exact")
    func renderLoopToFile() throws {
        let file = try CountingWAV(frames: Self.frames)
        let endless = file.directory.file("endless.wav")
        let error = #expect(throws: ReverseAudioError.self) {
            try PlaybackRenderer(url: file.url, loop: 0..<100).render(toFile: endless)
        }
        #expect(error == .output(.endlessOutput(path: endless.displayPath)))
        #expect(!FileManager.default.fileExists(atPath: endless.path))
        let bounded = file.directory.file("bounded.wav")
        #expect(try PlaybackRenderer(url: file.url, loop: 50..<100).render(toFile: bounded, maximumFrames: 1000) == 1000)
        let loops = (0..<18).flatMap { _ in Array(50..<100) }
        #expect(try PlaybackRenderer(url: bounded).renderSamples(period: 4096) == file.expected(Array(0..<100) + loops))
    }

    @Test("a file of one frame plays that frame once either way; a file of none cannot be played")
    func oneFrameAndEmpty() throws {
        let one = try CountingWAV(frames: 1)
        #expect(try PlaybackRenderer(url: one.url).renderSamples(period: 64) == [0, 1])
        #expect(try PlaybackRenderer(url: one.url, direction: .reverse).renderSamples(period: 64) == [0, 1])
        let empty = try CountingWAV(frames: 0)
        let error = #expect(throws: ReverseAudioError.self) { _ = try PlaybackRenderer(url: empty.url) }
        guard case .input(.decodingFailed(_, let reason)) = error else {
            Issue.record("not decodingFailed: \(String(describing: error))")
            return
        }
        #expect(reason.contains("no audio samples"))
    }

    @Test("effects apply live to what is heard: a gain of ×2 doubles every frame played backwards")
    func liveGain() throws {
        // Samples below 16 384: doubling is exact, nothing clips.
        let file = try CountingWAV(frames: 8_000)
        let renderer = try PlaybackRenderer(url: file.url, direction: .reverse, effects: [Gain(decibels: 20 * log10(2))])
        #expect(try renderer.renderSamples(period: 441) == file.expected(down: 7_999, to: 0).map { $0 * 2 })
    }
}

/// A file's decode read at any frame, either way, as `serve` reads it, and the chunk cache under
/// it and under playback: exact frames across chunk boundaries, typed errors for frames outside
/// the file, one seek per jump, a bounded number of chunks kept.
@Suite struct DecodedFramesInProcessTests {
    static let frames = 40_000

    static func copy(_ decoded: DecodedFrames, from start: Int64, count: Int, _ direction: PlaybackDirection) throws -> [Int16] {
        var buffer = [Int16](repeating: -1, count: count * decoded.format.channelCount)
        try buffer.withUnsafeMutableBytes { try decoded.copy(from: start, count: count, direction: direction, into: $0) }
        return buffer
    }

    @Test("forward and reversed reads across a chunk boundary give the file's frames; reversed frame k is N − 1 − k")
    func copies() throws {
        let file = try CountingWAV(frames: Self.frames)
        let decoded = try DecodedFrames(url: file.url)
        #expect(decoded.frameCount == Int64(Self.frames) && decoded.format.sampleFormat == .s16)
        #expect(try Self.copy(decoded, from: 16_000, count: 1000, .forward) == file.expected(16_000..<17_000))
        #expect(try Self.copy(decoded, from: 23_000, count: 1000, .reverse) == file.expected(down: 16_999, to: 16_000))
        #expect(try Self.copy(decoded, from: 0, count: 3, .reverse) == file.expected(down: Self.frames - 1, to: Self.frames - 3))
        #expect(try Self.copy(decoded, from: Int64(Self.frames - 1), count: 1, .forward) == file.expected([Self.frames - 1]))
        #expect(try Self.copy(decoded, from: Int64(Self.frames), count: 0, .forward).isEmpty)
    }

    /// Each case: the first frame, the frames asked for, the frames the buffer holds.
    @Test("frames outside the file, a negative count or a buffer too small are a typed error naming the start",
          arguments: [[40_000, 1, 1], [-1, 1, 1], [39_990, 11, 11], [0, -1, 0], [0, 4, 3]])
    func outside(_ request: [Int]) throws {
        let (start, count, bufferFrames) = (Int64(request[0]), request[1], request[2])
        let file = try CountingWAV(frames: Self.frames)
        let decoded = try DecodedFrames(url: file.url)
        var buffer = [Int16](repeating: 0, count: bufferFrames * 2)
        let error = #expect(throws: ReverseAudioError.self) {
            try buffer.withUnsafeMutableBytes { try decoded.copy(from: start, count: count, direction: .forward, into: $0) }
        }
        guard case .range(.cannotSeek(_, let frame, _)) = error else {
            Issue.record("not cannotSeek: \(String(describing: error))")
            return
        }
        #expect(frame == start)
    }

    @Test("after cancel, a read that needs a decode stops with a cancellation")
    func cancelled() throws {
        let file = try CountingWAV(frames: Self.frames)
        let decoded = try DecodedFrames(url: file.url)
        decoded.cancel()
        #expect(throws: CancellationError.self) { _ = try Self.copy(decoded, from: 0, count: 10, .forward) }
    }

    @Test("the cache's chunks hold the decode's frames; a chunk past the end is nil; going on costs no seek, a jump one")
    func chunkCache() throws {
        let file = try CountingWAV(frames: 1050, channels: 1)
        let cache = try ChunkCache(url: file.url, chunkFrames: 100, capacity: 8)
        func samples(_ chunk: DecodedChunk?) -> [Int16] { chunk.map { Array($0.bytes.bindMemory(to: Int16.self)) } ?? [] }
        for index in 0..<3 {
            #expect(samples(try cache.chunk(Int64(index), direction: .forward)) == file.expected((index * 100)..<(index * 100 + 100)))
        }
        #expect(cache.seeks == 0, "chunks 0, 1, 2 come from one continuous decode")
        #expect(samples(try cache.chunk(10, direction: .forward)) == file.expected(1000..<1050), "the last chunk is short")
        #expect(cache.seeks == 1)
        #expect(try cache.chunk(11, direction: .forward) == nil)
        // Backwards, a miss also brings the chunks before it, back to a multiple of the span
        // (the capacity less 2: 6), with one seek.
        #expect(samples(try cache.chunk(8, direction: .reverse)) == file.expected(800..<900))
        #expect(cache.seeks == 2 && cache.isCached(6) && cache.isCached(7) && !cache.isCached(5))
    }

    @Test("the cache keeps at most its capacity, and the chunks wanted survive")
    func chunkCacheCapacity() throws {
        let file = try CountingWAV(frames: 1050, channels: 1)
        let cache = try ChunkCache(url: file.url, chunkFrames: 100, capacity: 4)
        cache.setWanted([0])
        for index in 0..<8 { _ = try cache.chunk(Int64(index), direction: .forward) }
        let held = (0..<11).filter { cache.isCached(Int64($0)) }
        #expect(held == [0, 5, 6, 7])
        // A dropped chunk decodes again to the same frames.
        let again = try #require(try cache.chunk(2, direction: .forward))
        #expect(Array(again.bytes.bindMemory(to: Int16.self)) == file.expected(200..<300))
    }

    @Test("the decode-ahead thread brings every chunk of the plan, then rests until stopped")
    func decodeAhead() async throws {
        let file = try CountingWAV(frames: 6_000, channels: 1)
        let cache = try ChunkCache(url: file.url, chunkFrames: 100)
        cache.useRealTimePacing()
        let state = PlaybackState(frameCount: 6_000, position: 5_050, direction: .reverse)
        let control = PlayerControl(status: PlaybackStatus(state: state, framesRendered: 0, loopWraps: 0, underruns: 0, sampleRate: 44_100))
        let ahead = DecodeAhead(cache: cache, control: control)
        let plan = cache.schedule.plan(for: state)
        #expect(plan.ahead == Array(stride(from: 50, through: 39, by: -1)) && plan.behind == [51, 52, 53])
        let ended = AsyncFlag()
        Thread.detachNewThread {
            ahead.run()
            ended.raise()
        }
        // Polled with a generous bound that only a hang reaches.
        let deadline = Date(timeIntervalSinceNow: 60)
        while !plan.all.allSatisfy(cache.isCached), Date() < deadline { try await Task.sleep(for: .milliseconds(1)) }
        control.requestStop()
        ahead.wake()
        #expect(await ended.wait(upTo: 60))
        #expect(plan.all.allSatisfy(cache.isCached))
        // The cursor's chunk (a seek), the rest ahead from the lowest up (a seek), then behind (a seek).
        #expect(cache.seeks == 3)
        #expect(!cache.isCached(38) && !cache.isCached(54), "nothing outside the plan")
    }
}
