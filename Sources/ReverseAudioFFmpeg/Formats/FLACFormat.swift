import ReverseAudioCore

extension CodecFormat {
    /// Free Lossless Audio Codec: integers of up to 24 bits (8-bit goes in as 16-bit, exactly).
    package static let flac = CodecFormat(
        name: "flac", isLossless: true, encoder: { _ in "flac" }, stores: [.u8: .s16, .s16: .s16, .s24: .s24],
        // FFmpeg 5.1's encoder: "9 channels not supported (max 8)".
        maximumChannels: 8)
}

extension FileFormat {
    /// FLAC in its own file.
    package static let flac = FileFormat(
        name: "flac", extensions: ["flac"], summary: "FLAC: 16 or 24 bits, exact", muxer: "flac", codecs: [.flac],
        requiresSeekableFile: false, capabilities: [.tags, .coverArt])
}
