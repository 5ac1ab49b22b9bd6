import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
@testable import ReverseAudioPlayback
import ReverseAudioTesting

/// The player on a device in memory (no sound card, no process): its two threads play a file of
/// counting frames, and the device keeps every frame, so what a listener would hear is checked
/// frame by frame. A command is sent while the device holds a write, so it lands at a known
/// output frame without any sleep.
@Suite struct AudioPlayerInProcessTests {
    static let frames = 40_000
    static let period = 256

    static func collect(_ player: AudioPlayer) async -> [PlaybackEvent] {
        var events: [PlaybackEvent] = []
        for await event in player.events { events.append(event) }
        return events
    }

    /// A player of `file` started on a device that holds write `write`, stopped there: the
    /// caller sends its command at exactly that output frame, then releases the device.
    static func playerHeld(at write: Int, _ file: CountingWAV,
                           loop: Range<Int64>? = nil) throws -> (device: MemoryOutputDevice, player: AudioPlayer) {
        let device = MemoryOutputDevice(periodFrames: period)
        device.holdWrite(write)
        let renderer = try loop.map { try PlaybackRenderer(url: file.url, loop: $0) } ?? PlaybackRenderer(url: file.url)
        let player = AudioPlayer(renderer: renderer, device: device)
        try player.start()
        #expect(device.waitUntilHeld())
        return (device, player)
    }

    static func lastStatus(_ events: [PlaybackEvent]) -> PlaybackStatus? {
        if case .endReached(let status) = events.last { return status }
        return nil
    }

    @Test("forwards to the end: every frame in order, in writes of a period at most; drained, closed, the end reported last")
    func playsForwards() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let device = MemoryOutputDevice(periodFrames: Self.period)
        let renderer = try PlaybackRenderer(url: file.url)
        let format = renderer.format
        let player = AudioPlayer(renderer: renderer, device: device)
        try player.start()
        let events = await Self.collect(player)
        #expect(device.samples == file.expected(0..<Self.frames))
        #expect(device.writeSizes.allSatisfy { $0 > 0 && $0 <= Self.period })
        #expect(device.calls == [.open(format), .drain, .close])
        #expect(format.sampleFormat == .s16 && format.sampleRate == 44_100 && format.channelCount == 2)
        let last = try #require(Self.lastStatus(events), "the last event is not the end: \(String(describing: events.last))")
        #expect(last.framesRendered == Int64(Self.frames) && last.state.position == Int64(Self.frames))
        let positions = events.compactMap { event -> Int64? in
            if case .position(let status) = event { return status.state.position }
            return nil
        }
        #expect(!positions.isEmpty && positions == positions.sorted(), "forwards, the cursor only rises")
        #expect(player.status == last)
    }

    @Test("backwards to the start: the last frame first")
    func playsBackwards() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let device = MemoryOutputDevice(periodFrames: Self.period)
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: file.url, direction: .reverse), device: device)
        try player.start()
        let events = await Self.collect(player)
        #expect(device.samples == file.expected(down: Self.frames - 1, to: 0))
        #expect(Self.lastStatus(events)?.state.position == 0)
    }

    @Test("a toggle sent while the device holds write k turns playback at output frame k × period exactly")
    func toggleAtHeldWrite() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let (device, player) = try Self.playerHeld(at: 30, file)
        player.send(.toggleDirection)
        device.release()
        let events = await Self.collect(player)
        let turn = 30 * Self.period
        #expect(device.samples == file.expected(0..<turn) + file.expected(down: turn - 1, to: 0))
        #expect(Self.lastStatus(events)?.framesRendered == Int64(2 * turn))
        #expect(Self.lastStatus(events)?.state.direction == .reverse)
    }

    @Test("a seek sent while the device holds a write: playback goes on from the frame sought")
    func seekAtHeldWrite() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let (device, player) = try Self.playerHeld(at: 2, file)
        player.send(.seek(toFrame: 39_000))
        device.release()
        _ = await Self.collect(player)
        #expect(device.samples == file.expected(0..<(2 * Self.period)) + file.expected(39_000..<Self.frames))
    }

    @Test("pause holds the device and the cursor; play resumes it without losing or repeating a frame")
    func pauseAndPlay() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let (device, player) = try Self.playerHeld(at: 3, file)
        player.send(.pause)
        device.release()
        #expect(device.waitFor(.pause))
        #expect(device.frames == 3 * Self.period)
        #expect(!player.status.state.isPlaying && player.status.state.position == Int64(3 * Self.period))
        player.send(.play)
        let events = await Self.collect(player)
        #expect(device.samples == file.expected(0..<Self.frames))
        #expect(Array(device.calls.dropFirst()) == [.pause, .resume, .drain, .close])
        #expect(Self.lastStatus(events)?.state.isPlaying == true)
    }

    @Test("a device that cannot open: start throws its typed error, starts nothing, and a second start does nothing")
    func openFails() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let device = MemoryOutputDevice(name: "card", periodFrames: Self.period)
        device.failOnOpen = .deviceUnavailable(name: "card", reason: "busy")
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: file.url), device: device)
        let error = #expect(throws: ReverseAudioError.self) { try player.start() }
        #expect(error == .device(.deviceUnavailable(name: "card", reason: "busy")))
        #expect(error?.description == "sound device 'card': cannot open it (busy)")
        device.failOnOpen = nil
        try player.start()
        #expect(device.calls.count == 1, "a player starts once: \(device.calls)")
        player.stop()
        #expect(await Self.collect(player).isEmpty)
        #expect(device.writes == 0)
    }

    @Test("a write that fails ends playback with the device's error as the last event; the device is closed, not drained")
    func writeFails() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let device = MemoryOutputDevice(name: "card", periodFrames: Self.period)
        device.failOnWrite = 5
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: file.url), device: device)
        try player.start()
        let events = await Self.collect(player)
        #expect(events.last == .failed(.device(.deviceFailed(name: "card", reason: "write 5 failed (injected)"))))
        #expect(device.samples == file.expected(0..<(4 * Self.period)))
        #expect(Array(device.calls.dropFirst()) == [.close])
    }

    @Test("stop during an endless loop ends at once: the device is closed without a drain and no end is reported")
    func stopDuringLoop() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let (device, player) = try Self.playerHeld(at: 40, file, loop: 1_000..<3_000)
        device.release()
        player.stop()
        let events = await Self.collect(player)
        #expect(!events.contains { if case .endReached = $0 { return true } else { return false } })
        #expect(!events.contains { if case .failed = $0 { return true } else { return false } })
        #expect(Array(device.calls.dropFirst()) == [.close])
        // Output frame i is file frame i up to 3 000, then 1 000 + (i − 3 000) mod 2 000.
        let heard = device.frames
        #expect(heard >= 40 * Self.period)
        #expect(device.samples == file.expected((0..<heard).map { $0 < 3_000 ? $0 : 1_000 + ($0 - 3_000) % 2_000 }))
    }

    @Test("a loop played to a scheduled stop: every wrap counted, wraps reported, the end after the last frame")
    func loopWrapsToScheduledStop() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let device = MemoryOutputDevice(periodFrames: Self.period)
        let renderer = try PlaybackRenderer(url: file.url, loop: 0..<100)
        renderer.schedule(.stop, atOutputFrame: 1_000)
        let player = AudioPlayer(renderer: renderer, device: device)
        try player.start()
        let events = await Self.collect(player)
        #expect(device.samples == file.expected((0..<10).flatMap { _ in Array(0..<100) }))
        let last = try #require(Self.lastStatus(events))
        #expect(last.loopWraps == 9 && last.framesRendered == 1_000)
        #expect(events.contains { if case .loopWrapped = $0 { return true } else { return false } })
        #expect(Array(device.calls.dropFirst()) == [.drain, .close])
    }

    @Test("the device's underruns reach the status")
    func underruns() async throws {
        let file = try CountingWAV(frames: Self.frames)
        let device = MemoryOutputDevice(periodFrames: Self.period)
        device.underrunOnWrites = [2, 7]
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: file.url), device: device)
        try player.start()
        let events = await Self.collect(player)
        #expect(Self.lastStatus(events)?.underruns == 2)
    }
}

/// The pacing wrapper over a device in memory: what it forwards, and that a write returns no
/// sooner than its frames are due (a lower bound the clock guarantees; the waits here are a few
/// milliseconds of audio at 200 kHz).
@Suite struct PacedOutputDeviceInProcessTests {
    static let format = PCMFormat(sampleFormat: .s16, sampleRate: 200_000, channelCount: 1)

    @Test("every call and every frame reach the device behind it, in order; its properties show through")
    func forwards() throws {
        let device = MemoryOutputDevice(name: "inner", periodFrames: 100, bufferFrames: 1_000_000)
        device.underrunOnWrites = [1]
        let paced = PacedOutputDevice(device)
        #expect(paced.name == "inner" && paced.periodFrames == 100 && paced.bufferFrames == 1_000_000)
        try paced.open(format: Self.format)
        let samples = MemorySource.countingSamples(frames: 300)
        try samples.withUnsafeBytes { try paced.write($0, frameCount: 300) }
        try paced.pause()
        try paced.resume()
        try samples.withUnsafeBytes { try paced.write(UnsafeRawBufferPointer(rebasing: $0[0..<20]), frameCount: 10) }
        try paced.drain()
        paced.close()
        #expect(device.calls == [.open(Self.format), .pause, .resume, .drain, .close])
        #expect(device.samples == samples + samples.prefix(10))
        #expect(paced.underrunCount == 1)
    }

    @Test("a write returns once its frames less a buffer's worth are due; a drain once all are")
    func paces() throws {
        let device = MemoryOutputDevice(periodFrames: 100, bufferFrames: 100)
        let paced = PacedOutputDevice(device)
        let samples = [Int16](repeating: 0, count: 100)
        let clock = ContinuousClock()
        let start = clock.now
        try paced.open(format: Self.format)
        for _ in 0..<10 { try samples.withUnsafeBytes { try paced.write($0, frameCount: 100) } }
        // 1 000 frames written, 900 of them due: 4.5 ms at 200 kHz.
        #expect(clock.now - start >= .microseconds(4_500))
        try paced.drain()
        #expect(clock.now - start >= .microseconds(5_000))
        #expect(device.frames == 1_000)
    }

    @Test("the device's failures come through: one that cannot open, one that fails a write")
    func failures() throws {
        let device = MemoryOutputDevice(name: "inner", periodFrames: 100)
        device.failOnOpen = .deviceUnavailable(name: "inner", reason: "gone")
        let paced = PacedOutputDevice(device)
        #expect(throws: ReverseAudioError.device(.deviceUnavailable(name: "inner", reason: "gone"))) {
            try paced.open(format: Self.format)
        }
        device.failOnOpen = nil
        device.failOnWrite = 1
        try paced.open(format: Self.format)
        let samples = [Int16](repeating: 0, count: 10)
        #expect(throws: ReverseAudioError.device(.deviceFailed(name: "inner", reason: "write 1 failed (injected)"))) {
            try samples.withUnsafeBytes { try paced.write($0, frameCount: 10) }
        }
    }
}

/// The memory device's own contract checks, which the player tests lean on: a write out of
/// order (closed, paused) or short of bytes fails as a sound card would, and keeps nothing.
@Suite struct MemoryOutputDeviceInProcessTests {
    @Test("writes before open, while paused, after close or with too few bytes fail and keep nothing")
    func contract() throws {
        let device = MemoryOutputDevice(name: "m", periodFrames: 4)
        let samples: [Int16] = [1, 2, 3, 4]
        func write(_ frames: Int) throws { try samples.withUnsafeBytes { try device.write($0, frameCount: frames) } }
        #expect(throws: ReverseAudioError.device(.deviceFailed(name: "m", reason: "written while closed"))) { try write(2) }
        try device.open(format: PCMFormat(sampleFormat: .s16, sampleRate: 8_000, channelCount: 2))
        try write(2)
        try device.pause()
        #expect(throws: ReverseAudioError.device(.deviceFailed(name: "m", reason: "written while paused"))) { try write(1) }
        try device.resume()
        #expect(throws: ReverseAudioError.device(.deviceFailed(name: "m", reason: "8 bytes cannot hold 3 frames"))) { try write(3) }
        try write(1)
        device.close()
        #expect(throws: ReverseAudioError.self) { try write(1) }
        #expect(device.samples == [1, 2, 3, 4, 1, 2] && device.writeSizes == [2, 1] && device.writes == 6)
        #expect(device.bufferFrames == 16 && device.format?.channelCount == 2)
    }
}
