import Foundation
import ReverseAudioCore

/// Plays a ``PlaybackRenderer`` on an `AudioOutputDevice` in real time, forwards or
/// backwards, taking commands from any thread.
///
/// Two threads: the output thread renders one device period at a time (about 10 ms) and
/// writes it, which blocks until the device has room, so the device paces playback; the
/// decode thread keeps the chunks ahead of the cursor, and a few behind it,
/// decoded, so neither a toggle nor a short scrub waits for the disk. A command sent with
/// ``send(_:)`` takes effect at the first frame of the next render call: it is heard after
/// what the device already holds (its buffer, about 40 ms for ALSA). What the device receives
/// is exactly what `reverse-audio play --to-file` writes for the same commands at the same
/// output frames.
///
/// ```swift
/// let player = AudioPlayer(renderer: try PlaybackRenderer(url: song, direction: .reverse),
///                          device: try SystemAudioOutput.device())
/// try player.start()
/// for await event in player.events { if case .endReached = event { break } }
/// ```
public final class AudioPlayer: Sendable {
    /// The frames played.
    package let format: PCMFormat
    /// Frames in the file.
    package let frameCount: Int64
    /// Position updates (at least ten a second while playing), loop wraps, the end, errors.
    /// Ends when playback ends or ``stop()`` is called.
    public let events: AsyncStream<PlaybackEvent>
    private let continuation: AsyncStream<PlaybackEvent>.Continuation
    private let device: any AudioOutputDevice
    private let engine: Engine
    private let control: PlayerControl
    private let decodeAhead: DecodeAhead
    private let cache: ChunkCache

    /// The renderer, used by the output thread alone once started.
    private final class Engine: @unchecked Sendable {
        // @unchecked: `renderer` is touched by the output thread only (after `start()` hands it over).
        let renderer: PlaybackRenderer
        init(_ renderer: PlaybackRenderer) { self.renderer = renderer }
    }

    /// A player for `renderer` (with any commands already scheduled on it) on `device`.
    public init(renderer: sending PlaybackRenderer, device: any AudioOutputDevice) {
        format = renderer.format
        frameCount = renderer.frameCount
        renderer.cache.useRealTimePacing()
        let status = PlaybackStatus(state: renderer.state, framesRendered: renderer.framesRendered,
                                    loopWraps: renderer.loopWraps, underruns: 0, sampleRate: renderer.format.sampleRate)
        control = PlayerControl(status: status)
        cache = renderer.cache
        decodeAhead = DecodeAhead(cache: renderer.cache, control: control)
        engine = Engine(renderer)
        self.device = device
        (events, continuation) = AsyncStream.makeStream(of: PlaybackEvent.self, bufferingPolicy: .bufferingNewest(256))
    }

    deinit {
        stop()
    }

    /// Opens the device and starts playing. Once: later calls (and calls after ``stop()``, or
    /// after the device failed to open) do nothing.
    /// - Throws: `DeviceError.deviceUnavailable(name:reason:)` when the device cannot
    ///   be opened for the renderer's format.
    public func start() throws {
        guard control.markStarted(threads: 2) else { return }
        do {
            try device.open(format: format)
        } catch {
            control.threadFinished()
            control.threadFinished()
            throw error
        }
        let decodeThread = Thread { [decodeAhead, control] in
            decodeAhead.run()
            control.threadFinished()
        }
        decodeThread.name = "ReverseAudio.decode"
        decodeThread.stackSize = 8 << 20
        let outputThread = Thread { [self] in
            play()
            control.threadFinished()
        }
        outputThread.name = "ReverseAudio.output"
        outputThread.stackSize = 8 << 20
        outputThread.qualityOfService = .userInteractive
        decodeThread.start()
        outputThread.start()
    }

    /// Sends `command`; it takes effect at the first frame of the next render call.
    public func send(_ command: PlaybackCommand) {
        control.send(command)
        decodeAhead.wake()
    }

    /// The status after the last frames rendered.
    public var status: PlaybackStatus { control.status }

    /// Problems met decoding the file that did not stop playback (a file shorter than it said).
    public var warnings: [ReverseAudioWarning] { cache.warnings }

    /// Stops playing at once (what the device holds is dropped), closes the device and waits
    /// for the threads to end. Idempotent; ends ``events``.
    public func stop() {
        control.requestStop()
        engine.renderer.cache.cancel()
        decodeAhead.wake()
        control.waitForThreads()
        continuation.finish()
    }

    /// The output thread: render a period, write it, report; hold the device while paused.
    private func play() {
        let renderer = engine.renderer
        let frameBytes = format.bytesPerFrame
        let period = max(device.periodFrames, 32)
        var buffer = [UInt8](repeating: 0, count: period * frameBytes)
        let clock = ContinuousClock()
        var lastReport = clock.now - .seconds(1)
        var devicePaused = false
        var wraps = renderer.loopWraps
        var chunk = renderer.cache.index(of: renderer.state.position)
        func status() -> PlaybackStatus {
            PlaybackStatus(state: renderer.state, framesRendered: renderer.framesRendered, loopWraps: renderer.loopWraps,
                           underruns: device.underrunCount, sampleRate: format.sampleRate)
        }
        func report(now force: Bool) {
            let now = clock.now
            guard force || now - lastReport >= .milliseconds(50) else { return }
            lastReport = now
            continuation.yield(.position(status()))
        }
        do {
            while true {
                let (commands, stop) = control.take()
                if stop { break }
                commands.forEach(renderer.apply)
                let frames = try buffer.withUnsafeMutableBytes { try renderer.render(into: $0, frameCount: period) }
                control.publish(status())
                let now = renderer.cache.index(of: renderer.state.position)
                if now != chunk || !commands.isEmpty {
                    chunk = now
                    decodeAhead.wake()
                }
                if renderer.loopWraps != wraps {
                    wraps = renderer.loopWraps
                    continuation.yield(.loopWrapped(status()))
                }
                if frames > 0 {
                    if devicePaused {
                        try device.resume()
                        devicePaused = false
                    }
                    try buffer.withUnsafeBytes {
                        try device.write(UnsafeRawBufferPointer(rebasing: $0[0..<(frames * frameBytes)]), frameCount: frames)
                    }
                    report(now: !commands.isEmpty)
                    continue
                }
                if renderer.isFinished {
                    try device.drain()
                    continuation.yield(.endReached(status()))
                    break
                }
                if renderer.runNextScheduledCommandWhilePaused() { continue }
                // Paused: hold the device and wait for a command.
                if !devicePaused {
                    try device.pause()
                    devicePaused = true
                }
                report(now: true)
                control.waitForCommand(timeout: 0.1)
            }
        } catch {
            if !control.isStopping {
                continuation.yield(.failed(Self.describe(error, path: renderer.cache.name)))
            }
        }
        device.close()
        // Playback is over (its end, a failure): the decode-ahead thread need not wait for stop().
        control.requestStop()
        decodeAhead.wake()
        continuation.finish()
    }

    private static func describe(_ error: any Error, path: String) -> ReverseAudioError {
        if let error = error as? ReverseAudioError { return error }
        return .input(.decodingFailed(path: path, reason: String(describing: error)))
    }
}
