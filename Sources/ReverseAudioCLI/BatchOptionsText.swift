import ReverseAudio

/// Every setting of a `reverse` batch that changes an output's bytes, as one canonical string:
/// what the resume record compares, so that a rerun with other options redoes the files.
/// (`-y`, `--jobs`, the progress and the report flags change no byte, so they are left out.)
enum BatchOptionsText {
    static func text(_ options: ConversionOptions, verify: Bool) -> String {
        var parts = ["channels=\(options.channels)"]
        parts.append("sample-format=\(options.sampleFormat.map(\.rawValue) ?? "native")")
        parts.append("sample-rate=\(options.sampleRate.map(String.init) ?? "input")")
        parts.append("format=\(options.outputFormat.map { "\($0.name)/\($0.codec ?? "auto")/\($0.bitRate.map(String.init) ?? "default")" } ?? "wav")")
        parts.append("block-frames=\(options.blockFrames.map(String.init) ?? "default")")
        parts.append("range=\(options.range.map { String(describing: $0) } ?? "all")")
        if verify { parts.append("verify") }
        return parts.joined(separator: " ")
    }
}
