import ReverseAudioCore

extension CodecFormat {
    /// Apple Lossless: integers of up to 24 bits (8-bit goes in as 16-bit, exactly).
    package static let alac = CodecFormat(
        name: "alac", isLossless: true, encoder: { _ in "alac" }, stores: [.u8: .s16, .s16: .s16, .s24: .s24],
        maximumChannels: 8)

    /// AAC-LC, FFmpeg's own encoder.
    package static let aac = CodecFormat(
        name: "aac", isLossless: false, encoder: { _ in "aac" }, bitRates: 8_000...640_000,
        defaultBitRate: { CodecFormat.commonBitRate($0) }, maximumChannels: 8)
}

extension FileFormat {
    /// MPEG-4 audio (`.m4a`, `.m4r` ringtones, `.m4b`, `.mp4`): ALAC for a lossless input, AAC
    /// for a lossy one, unless told. Its edit list states the audio's exact end in samples (the
    /// movie's time scale is the sample rate), and a cut of AAC is copied behind one.
    package static let m4a = FileFormat(
        name: "m4a", extensions: ["m4a", "m4r", "m4b", "mp4"], listed: 2, summary: "MPEG-4 audio: ALAC or AAC", muxer: "ipod",
        codecs: [.alac, .aac], lossyDefault: "aac", requiresSeekableFile: true,
        capabilities: [.tags, .gapless, .editList, .coverArt, .chapters],
        muxerOptions: { format, _, _ in ["movie_timescale": String(format.sampleRate)] },
        copiedCut: .mp4EditList, muxerExtensions: ["m4a", "m4v", "m4b"])
}
