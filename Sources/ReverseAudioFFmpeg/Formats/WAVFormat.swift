extension FileFormat {
    /// WAV: PCM, a plain RIFF header while the data surely fits in 4 GiB, RF64 when it may not.
    package static let wav = FileFormat(
        name: "wav", extensions: ["wav", "wave"], summary: "WAV (RF64 past 4 GiB): PCM", muxer: "wav", codecs: [.pcm()],
        requiresSeekableFile: false, capabilities: [.tags],
        muxerOptions: { format, bytesPerFrame, frames in
            let limit: Int64 = 0xFFFF_FFFF - (1 << 20)
            let mayOutgrowRIFF = frames.map { $0 * Int64(bytesPerFrame) > limit } ?? true
            return mayOutgrowRIFF ? ["rf64": "auto"] : [:]
        })
}
