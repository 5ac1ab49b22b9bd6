extension FileFormat {
    /// AIFF (AIFC for floating-point samples): big-endian PCM, at most 4 GiB of samples (its
    /// sizes are 32-bit).
    package static let aiff = FileFormat(
        name: "aiff", extensions: ["aiff", "aif", "aifc"], listed: 2, summary: "AIFF (AIFC for floats): PCM", muxer: "aiff",
        codecs: [.pcm(bigEndian: true)], requiresSeekableFile: true, capabilities: [.tags],
        maximumDataBytes: Int64(UInt32.max) - (1 << 16))
}
