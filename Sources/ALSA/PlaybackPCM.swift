#if os(Linux)
import CALSA

/// Owns one ALSA playback PCM (`snd_pcm_t`), written blocking, interleaved, with ALSA's own
/// conversions allowed (`plug`), so any PCM name works: `default` (PulseAudio or PipeWire on a
/// desktop), `hw:0`, `null`, `file:FILE=/tmp/x.raw,FORMAT=raw`.
///
/// Used from one thread at a time; ``close()`` (or deinit) frees it exactly once.
package final class PlaybackPCM {
    private var handle: OpaquePointer?
    /// The PCM name it was opened with.
    package let name: String
    /// Frames per period: what one write should hand over to keep the latency low.
    package let periodFrames: Int
    /// Frames the device buffers: the latency between a write and hearing it.
    package let bufferFrames: Int
    /// Underruns met (and recovered from) so far.
    package private(set) var underruns = 0
    private let bytesPerFrame: Int

    /// Opens `name` for `channels` channels at `rate` Hz, buffering about `latencyMicroseconds`
    /// (in four periods).
    package init(name: String, encoding: PCMSampleEncoding, channels: Int, rate: Int, bytesPerFrame: Int,
                 latencyMicroseconds: Int) throws(ALSAError) {
        ra_alsa_silence_errors()
        self.name = name
        self.bytesPerFrame = bytesPerFrame
        var opened: OpaquePointer?
        // Opened without blocking: a busy hardware device fails at once (EBUSY) instead of
        // waiting for whoever holds it; writes block again after that.
        try ALSAError.check(snd_pcm_open(&opened, name, SND_PCM_STREAM_PLAYBACK, ra_alsa_open_nonblocking()), "opening the device")
        guard let opened else { throw ALSAError(code: -ENODEV, operation: "opening the device") }
        handle = opened
        do {
            try ALSAError.check(snd_pcm_nonblock(opened, 0), "opening the device")
            try ALSAError.check(snd_pcm_set_params(opened, encoding.alsaFormat, SND_PCM_ACCESS_RW_INTERLEAVED,
                                                   UInt32(channels), UInt32(rate), 1, UInt32(latencyMicroseconds)),
                                "setting \(channels) channels at \(rate) Hz")
            var buffer: snd_pcm_uframes_t = 0
            var period: snd_pcm_uframes_t = 0
            try ALSAError.check(snd_pcm_get_params(opened, &buffer, &period), "reading the buffer size")
            bufferFrames = Int(buffer)
            periodFrames = max(Int(period), 1)
        } catch {
            snd_pcm_close(opened)
            handle = nil
            throw error
        }
    }

    deinit { close() }

    /// Writes `frames` interleaved frames, blocking until the device has taken them all.
    /// An underrun (the device ran dry) is recovered with `snd_pcm_recover` and counted.
    package func write(_ bytes: UnsafeRawPointer, frames: Int) throws(ALSAError) {
        guard let handle else { throw ALSAError(code: -EBADF, operation: "writing to a closed device") }
        var done = 0
        while done < frames {
            let written = snd_pcm_writei(handle, bytes + done * bytesPerFrame, snd_pcm_uframes_t(frames - done))
            if written >= 0 {
                done += Int(written)
                continue
            }
            let code = Int32(written)
            if code == ra_alsa_eagain() || code == ra_alsa_eintr() { continue }
            if code == ra_alsa_epipe() { underruns += 1 }
            try ALSAError.check(snd_pcm_recover(handle, code, 1), "writing to the device")
        }
    }

    /// Holds playback where it is (`snd_pcm_pause` where the device can, else drops what is
    /// buffered).
    package func pause() throws(ALSAError) {
        guard let handle else { return }
        if snd_pcm_state(handle) != SND_PCM_STATE_RUNNING { return }
        if snd_pcm_pause(handle, 1) < 0 {
            try ALSAError.check(snd_pcm_drop(handle), "pausing the device")
        }
    }

    /// Resumes after ``pause()``.
    package func resume() throws(ALSAError) {
        guard let handle else { return }
        switch snd_pcm_state(handle) {
        case SND_PCM_STATE_PAUSED: try ALSAError.check(snd_pcm_pause(handle, 0), "resuming the device")
        case SND_PCM_STATE_SETUP: try ALSAError.check(snd_pcm_prepare(handle), "resuming the device")
        default: break
        }
    }

    /// Blocks until everything written has been played.
    package func drain() throws(ALSAError) {
        guard let handle else { return }
        if snd_pcm_state(handle) == SND_PCM_STATE_PAUSED { _ = snd_pcm_pause(handle, 0) }
        let result = snd_pcm_drain(handle)
        if result == ra_alsa_epipe() { return }  // it had run dry: nothing left to play
        try ALSAError.check(result, "draining the device")
    }

    /// Stops at once, dropping what is buffered.
    package func drop() {
        guard let handle else { return }
        _ = snd_pcm_drop(handle)
    }

    /// Closes the device (once; later calls do nothing).
    package func close() {
        guard let handle else { return }
        snd_pcm_close(handle)
        self.handle = nil
    }
}
#endif
