import Foundation
import ReverseAudioCore

/// A device that takes frames no faster than they would be heard: it forwards each write to
/// another device, then waits until the clock has caught up with the frames written, less the
/// frames a sound card would buffer. Wrapped around ALSA's `null` PCM (which takes frames as
/// fast as they come), playback then runs in real time on a machine without a sound card, so
/// the keys and the status line can be tried (`play --device null --realtime`).
///
/// Pausing stops the clock: after ``resume()`` the pace is counted again from then.
package final class PacedOutputDevice: AudioOutputDevice, @unchecked Sendable {
    // @unchecked: the pacing state is used only by the thread that plays (the protocol's
    // contract); the wrapped device guards its own.
    private let device: any AudioOutputDevice
    private let clock = ContinuousClock()
    private var started: ContinuousClock.Instant?
    private var framesSinceStart: Int64 = 0
    private var sampleRate = 0

    /// Paces `device`.
    package init(_ device: any AudioOutputDevice) {
        self.device = device
    }

    /// The paced device's name.
    package var name: String { device.name }
    /// The paced device's period.
    package var periodFrames: Int { device.periodFrames }
    /// The paced device's buffer.
    package var bufferFrames: Int { device.bufferFrames }
    /// The paced device's underruns.
    package var underrunCount: Int { device.underrunCount }

    /// Opens the paced device and starts the clock.
    package func open(format: PCMFormat) throws {
        try device.open(format: format)
        sampleRate = format.sampleRate
        restartClock()
    }

    /// Forwards the frames, then waits until they are due (all but a buffer's worth played).
    package func write(_ samples: UnsafeRawBufferPointer, frameCount: Int) throws {
        try device.write(samples, frameCount: frameCount)
        framesSinceStart += Int64(frameCount)
        wait(untilPlayed: max(0, framesSinceStart - Int64(max(device.bufferFrames, periodFrames))))
    }

    /// Pauses the paced device.
    package func pause() throws {
        try device.pause()
    }

    /// Resumes the paced device and counts the pace again from now.
    package func resume() throws {
        try device.resume()
        restartClock()
    }

    /// Waits until every frame written is due, as a sound card drains its buffer.
    package func drain() throws {
        wait(untilPlayed: framesSinceStart)
        try device.drain()
    }

    /// Closes the paced device.
    package func close() {
        device.close()
    }

    private func restartClock() {
        started = clock.now
        framesSinceStart = 0
    }

    /// Sleeps until `frames` frames from the clock's start have had time to play.
    private func wait(untilPlayed frames: Int64) {
        guard let started, sampleRate > 0 else { return }
        let due = started + .seconds(Double(frames) / Double(sampleRate))
        let left = due - clock.now
        if left > .zero { Thread.sleep(forTimeInterval: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18) }
    }
}
