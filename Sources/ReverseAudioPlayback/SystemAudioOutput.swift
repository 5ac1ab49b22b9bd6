import ReverseAudioCore
/// This system's sound output.
public enum SystemAudioOutput {
    /// A device for `name` (not opened yet): on Linux an ALSA device for that ALSA PCM
    /// name (`default` when nil).
    /// - Throws: `DeviceError.deviceUnavailable(name:reason:)` where this build has no
    ///   sound output (macOS, until CoreAudio output is written).
    public static func device(named name: String? = nil) throws -> any AudioOutputDevice {
        #if os(Linux)
        return ALSAOutputDevice(name: name ?? "default")
        #else
        throw ReverseAudioError.device(.deviceUnavailable(name: name ?? "default", reason: "this build plays only through ALSA, on Linux"))
        #endif
    }
}
