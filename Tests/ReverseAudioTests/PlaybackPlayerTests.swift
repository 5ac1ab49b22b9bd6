import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// A device that keeps every frame it is given, optionally taking `pace` seconds of wall time
/// per second of audio (1 for real time, 0 for as fast as it comes).
final class RecordingDevice: AudioOutputDevice, @unchecked Sendable {
    // @unchecked: every stored var is only touched under `lock`.
    let name = "recording"
    let periodFrames: Int
    var bufferFrames: Int { 4 * periodFrames }
    let pace: Double
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var writeTimes: [ContinuousClock.Instant] = []
    private var rate = 0
    private var bytesPerFrame = 1
    private var opened: PCMFormat?
    private(set) var calls: [String] = []

    init(periodFrames: Int = 441, pace: Double = 0) {
        self.periodFrames = periodFrames
        self.pace = pace
    }

    func open(format: PCMFormat) throws {
        locked {
            rate = format.sampleRate
            bytesPerFrame = format.bytesPerFrame
            opened = format
            calls.append("open")
        }
    }

    func write(_ samples: UnsafeRawBufferPointer, frameCount: Int) throws {
        let seconds = locked {
            bytes.append(contentsOf: samples)
            writeTimes.append(.now)
            return Double(frameCount) / Double(rate) * pace
        }
        if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
    }

    func pause() throws { locked { calls.append("pause") } }
    func resume() throws { locked { calls.append("resume") } }
    func drain() throws { locked { calls.append("drain") } }
    func close() { locked { calls.append("close") } }
    var underrunCount: Int { 0 }
    var format: PCMFormat { locked { opened ?? PCMFormat(sampleRate: 44100, channelCount: 2) } }

    var frames: Int { locked { bytes.count / bytesPerFrame } }
    var samples: [Int16] {
        locked { bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) } } }
    }
    var history: [String] { locked { calls } }
    /// Seconds from the first write to the last.
    var writingSeconds: Double {
        locked { writeTimes.count < 2 ? 0 : (writeTimes.last! - writeTimes.first!) / .seconds(1) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// The player around the renderer: threads, commands from other threads, events; and the
/// decode-ahead plan.
@Suite(.runsProcesses) struct PlaybackPlayerTests {
    /// Blocks the calling thread (a sleep that cannot resume late the way an await can).
    static func block(_ seconds: Double) {
        Thread.sleep(forTimeInterval: seconds)
    }

    static func collect(_ player: AudioPlayer) async -> [PlaybackEvent] {
        var events: [PlaybackEvent] = []
        for await event in player.events { events.append(event) }
        return events
    }

    @Test("a command sent from another thread takes effect at the first frame of a render call")
    func commandFromAnotherThread() async throws {
        let input = try await SignalFiles.shared("ten-seconds.flac", seconds: 10, codecArguments: ["-c:a", "flac"])
        let decode = try await FFmpegOracle.samples(of: input)
        // Ten times faster than real time: the toggle lands somewhere in the middle.
        let device = RecordingDevice(periodFrames: 441, pace: 0.1)
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: input), device: device)
        try player.start()
        // A thread of its own, not a task: other tests may keep the cooperative pool busy.
        Thread.detachNewThread {
            while device.frames < 150_000 { Thread.sleep(forTimeInterval: 0.002) }
            player.send(.toggleDirection)
        }
        let events = await Self.collect(player)
        guard case .endReached(let last) = events.last else {
            Issue.record("the last event is not the end: \(String(describing: events.last))")
            return
        }
        let played = device.samples
        // Forward from 0 to T, then backwards from T to 0: T is where the toggle applied.
        let turn = played.count / 4
        #expect(played.count % 4 == 0 && turn >= 150_000 && turn < decode.count / 2)
        #expect(turn % device.periodFrames == 0, "the toggle applied at frame \(turn), inside a render call")
        let forward = Array(decode[0..<(2 * turn)])
        var backward: [Int16] = []
        for frame in stride(from: turn - 1, through: 0, by: -1) { backward += decode[(2 * frame)..<(2 * frame + 2)] }
        #expect(played == forward + backward)
        #expect(last.framesRendered == Int64(2 * turn) && last.state.position == 0)
        #expect(device.history == ["open", "drain", "close"])
    }

    @Test("at least ten position events a second while playing on a real-time device; the end comes last")
    func positionEvents() async throws {
        let input = Fixtures.url("flac-s16-2ch-44100.flac")
        let device = RecordingDevice(periodFrames: 441, pace: 1)
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: input, direction: .reverse), device: device)
        try player.start()
        // The events wait in the stream's buffer however late this task gets to read them.
        let events = await Self.collect(player)
        let seconds = device.writingSeconds
        let positions = events.compactMap { event -> PlaybackStatus? in
            if case .position(let status) = event { return status }
            return nil
        }
        #expect(seconds >= 0.9, "a second of audio took \(seconds) s on a real-time device")
        #expect(Double(positions.count) >= 10 * seconds, "\(positions.count) position events in \(seconds) s")
        #expect(positions.map(\.state.position) == positions.map(\.state.position).sorted(by: >), "backwards, the cursor only falls")
        #expect(positions.allSatisfy { $0.state.direction == .reverse })
        guard case .endReached(let last) = events.last else {
            Issue.record("the last event is not the end")
            return
        }
        #expect(last.state.position == 0 && last.framesRendered == 44100 && device.frames == 44100)
    }

    @Test("pause holds the device and the cursor, play resumes, stop ends at once")
    func pauseResumeStop() async throws {
        let input = try await SignalFiles.shared("ten-seconds.flac", seconds: 10, codecArguments: ["-c:a", "flac"])
        let device = RecordingDevice(periodFrames: 441, pace: 1)
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: input), device: device)
        try player.start()
        // Timed by blocking this test's own thread: an await could resume late when
        // other tests keep the cooperative pool busy.
        Self.block(0.2)
        player.send(.pause)
        Self.block(0.1)
        let held = device.frames
        let status = player.status
        Self.block(0.2)
        #expect(!status.state.isPlaying)
        #expect(held < 441_000 && device.frames == held, "nothing is written while paused")
        #expect(player.status.state.position == status.state.position)
        player.send(.play)
        Self.block(0.2)
        #expect(device.frames > held)
        let stopping = ContinuousClock.now
        player.stop()
        #expect(ContinuousClock.now - stopping < .milliseconds(200))
        let events = await Self.collect(player)
        #expect(!events.contains { if case .endReached = $0 { return true } else { return false } })
        #expect(device.history == ["open", "pause", "resume", "close"])
    }

    #if os(Linux)
    @Test("a missing ALSA device fails to start with a one-line error naming it")
    func missingDevice() throws {
        let player = AudioPlayer(renderer: try PlaybackRenderer(url: Fixtures.url("wav-pcm_s16le-2ch-44100.wav")),
                                 device: try SystemAudioOutput.device(named: "no-such-device"))
        let error = #expect(throws: ReverseAudioError.self) { try player.start() }
        guard case .device(.deviceUnavailable(let name, _)) = error else {
            Issue.record("not deviceUnavailable: \(String(describing: error))")
            return
        }
        #expect(name == "no-such-device")
        // The library names the device and the reason; the tool adds its own advice (--to-file).
        #expect(error?.description.contains("cannot open") == true && error?.description.contains("\n") == false)
    }
    #endif

    @Test("decoding ahead backwards sweeps up from the lowest missing chunk: one seek per sweep")
    func sweepBackwards() async throws {
        let input = try await SignalFiles.shared("thirty-seconds.wav", seconds: 30)
        let renderer = try PlaybackRenderer(url: input, direction: .reverse)
        let cache = renderer.cache
        let schedule = PlaybackSchedule(chunkFrames: cache.chunkFrames, frameCount: cache.frameCount, pacing: .realTime,
                                        aheadChunks: 8, behindChunks: 2)
        let last = schedule.chunkCount - 1
        #expect(schedule.plan(for: renderer.state).ahead == Array(stride(from: last, through: last - 7, by: -1)))
        var order: [Int64] = []
        while let next = schedule.nextRun(for: renderer.state, isCached: cache.isCached) {
            order.append(next)
            try cache.prefetch(next)
        }
        #expect(order == [last] + Array((last - 7)...(last - 1)))
        #expect(cache.seeks == 2)
    }
}
