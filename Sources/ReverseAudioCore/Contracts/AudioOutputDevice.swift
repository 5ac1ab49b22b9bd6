/// Somewhere rendered frames are heard: a sound card, a sound server, a capture file; a device
/// that paces its writer.
///
/// An `AudioPlayer` (ReverseAudioPlayback) opens it, then writes from its output thread one
/// period at a time: a write blocks until the device has room, which paces playback in real
/// time. ``open(format:)``, ``write(_:frameCount:)``, ``pause()``, ``resume()``, ``drain()``
/// and ``close()`` are called from one thread at a time; ``underrunCount`` from any. The
/// renderer knows nothing of devices: `SystemAudioOutput` (ReverseAudioPlayback) gives this
/// system's. The contract lives here, beside the model, so that a device can be written with
/// no FFmpeg and no playback module (ReverseAudioTesting's `MemoryOutputDevice`).
public protocol AudioOutputDevice: Sendable {
    /// The device's name, for messages.
    var name: String { get }
    /// Prepares to play frames of `format` (interleaved).
    /// - Throws: `DeviceError.deviceUnavailable(name:reason:)` when it cannot.
    func open(format: PCMFormat) throws
    /// Frames one write should carry: small, so that a command is heard soon after it is given.
    var periodFrames: Int { get }
    /// Frames the device holds before they are heard (the output latency).
    var bufferFrames: Int { get }
    /// Plays `frameCount` frames from `samples`, blocking until the device has taken them.
    func write(_ samples: UnsafeRawBufferPointer, frameCount: Int) throws
    /// Holds playback (nothing is written while paused).
    func pause() throws
    /// Resumes after ``pause()``.
    func resume() throws
    /// Blocks until everything written has been heard.
    func drain() throws
    /// Stops at once and lets the device go (buffered frames are dropped). Idempotent.
    func close()
    /// Times the device ran dry and was restarted.
    var underrunCount: Int { get }
}
