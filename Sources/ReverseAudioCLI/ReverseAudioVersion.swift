import ReverseAudio

enum ReverseAudioVersion {
    static var string: String { "reverse-audio 0.1.0 (\(FFmpegVersions.linked))" }
}
