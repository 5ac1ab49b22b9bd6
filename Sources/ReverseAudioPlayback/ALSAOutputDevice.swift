#if os(Linux)
import ALSA
import Foundation
import ReverseAudioCore

/// Sound output through ALSA: any PCM name, so `default` (PulseAudio or PipeWire on a desktop,
/// through their ALSA plugins), `hw:0`, `null`, or `file:FILE=/tmp/x.raw,FORMAT=raw` (ALSA's
/// own capture plugin, which writes every frame it receives).
///
/// ALSA converts rate and format where the hardware needs it. The buffer holds about
/// ``latency`` seconds in four periods (10 ms each by default), so a command is heard within
/// about 50 ms; an underrun is recovered (`snd_pcm_recover`) and counted.
package final class ALSAOutputDevice: AudioOutputDevice, @unchecked Sendable {
    // @unchecked: `pcm` is used only by the thread that plays (the protocol's contract);
    // `underruns` is read from any thread, under `lock`.
    /// The ALSA PCM name.
    package let name: String
    /// The buffering asked for, in seconds.
    package let latency: Double
    private var pcm: PlaybackPCM?
    private let lock = NSLock()
    private var underruns = 0
    private var openedFormat: PCMFormat?

    /// A device for the ALSA PCM `name` (not opened yet).
    /// - Parameters:
    ///   - name: an ALSA PCM name; `default` by default.
    ///   - latency: seconds the device buffers (four periods).
    package init(name: String = "default", latency: Double = 0.04) {
        self.name = name
        self.latency = latency
    }

    /// The frames the device was opened for (16-bit stereo at 44.1 kHz until it is).
    package var format: PCMFormat {
        lock.lock()
        defer { lock.unlock() }
        return openedFormat ?? PCMFormat(sampleFormat: .s16, sampleRate: 44100, channelCount: 2)
    }

    /// Frames per period (0 until opened).
    package var periodFrames: Int { pcm?.periodFrames ?? 0 }

    /// Frames the device buffers (0 until opened).
    package var bufferFrames: Int { pcm?.bufferFrames ?? 0 }

    /// Opens the PCM for `format`.
    /// - Throws: `DeviceError.deviceUnavailable(name:reason:)`.
    package func open(format: PCMFormat) throws {
        close()
        let encoding: PCMSampleEncoding
        switch format.sampleFormat {
        case .u8: encoding = .u8
        case .s16: encoding = .s16
        case .s24, .s32: encoding = .s32
        case .f32: encoding = .float
        case .f64: encoding = .double
        }
        do {
            pcm = try PlaybackPCM(name: name, encoding: encoding, channels: format.channelCount, rate: format.sampleRate,
                                  bytesPerFrame: format.bytesPerFrame,
                                  latencyMicroseconds: max(1000, Int(latency * 1_000_000)))
        } catch {
            throw ReverseAudioError.device(.deviceUnavailable(name: name, reason: "\(error.operation): \(error.message)"))
        }
        lock.lock()
        openedFormat = format
        lock.unlock()
    }

    /// Plays `frameCount` frames, blocking until ALSA has taken them.
    package func write(_ samples: UnsafeRawBufferPointer, frameCount: Int) throws {
        guard let pcm, let base = samples.baseAddress, frameCount > 0 else { return }
        defer {
            lock.lock()
            underruns = pcm.underruns
            lock.unlock()
        }
        do {
            try pcm.write(base, frames: frameCount)
        } catch {
            throw ReverseAudioError.device(.deviceFailed(name: name, reason: error.description))
        }
    }

    /// Pauses the PCM.
    package func pause() throws {
        do { try pcm?.pause() } catch { throw ReverseAudioError.device(.deviceFailed(name: name, reason: error.description)) }
    }

    /// Resumes the PCM.
    package func resume() throws {
        do { try pcm?.resume() } catch { throw ReverseAudioError.device(.deviceFailed(name: name, reason: error.description)) }
    }

    /// Waits until the buffered frames have been played.
    package func drain() throws {
        do { try pcm?.drain() } catch { throw ReverseAudioError.device(.deviceFailed(name: name, reason: error.description)) }
    }

    /// Drops what is buffered and closes the PCM.
    package func close() {
        pcm?.drop()
        pcm?.close()
        pcm = nil
    }

    /// Underruns recovered so far.
    package var underrunCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return underruns
    }
}
#endif
