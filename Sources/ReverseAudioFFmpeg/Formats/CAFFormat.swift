extension FileFormat {
    /// Core Audio Format: PCM, ALAC or FLAC.
    package static let caf = FileFormat(
        name: "caf", extensions: ["caf"], summary: "Core Audio Format: PCM, ALAC or FLAC", muxer: "caf",
        codecs: [.pcm(signedBytes: true), .alac, .flac], requiresSeekableFile: true, capabilities: [.tags])
}
