import ReverseAudioCore

extension CodecFormat {
    /// Opus through libopus: 48 kHz (or 24, 16, 12, 8), the input resampled by swresample to
    /// the nearest, as the `ffmpeg` CLI does; the encoder's pre-skip is stated in the header.
    package static let opus = CodecFormat(
        name: "opus", isLossless: false, encoder: { _ in "libopus" }, bitRates: 6_000...510_000,
        // No bit rate of ours: FFmpeg's wrapper gives 64 kb/s a stream and 32 more a coupled
        // pair (96 kb/s for stereo), as the `ffmpeg` CLI writes.
        maximumChannels: 8, resamplesTo: [48_000, 24_000, 16_000, 12_000, 8_000])
}

extension FileFormat {
    /// Opus in Ogg (`.opus`): pre-skip in its header, the exact end in the last granule position.
    package static let opus = FileFormat(
        name: "opus", extensions: ["opus"], summary: "Opus in Ogg", muxer: "opus", codecs: [.opus],
        requiresSeekableFile: false, capabilities: [.tags, .gapless])
}
