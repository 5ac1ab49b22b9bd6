import ReverseAudioCore

extension CodecFormat {
    /// MPEG audio layer III through LAME: at most 320 kb/s and two channels.
    package static let mp3 = CodecFormat(
        name: "mp3", isLossless: false, encoder: { _ in "libmp3lame" }, bitRates: 8_000...320_000,
        defaultBitRate: { format in min(CodecFormat.commonBitRate(format), format.sampleRate >= 32000 ? 320_000 : 160_000) },
        maximumChannels: 2)
}

extension FileFormat {
    /// MP3, with LAME's gapless tag; a cut of an MP3 is copied frame for frame behind one.
    package static let mp3 = FileFormat(
        name: "mp3", extensions: ["mp3"], summary: "MP3 (LAME, gapless tag)", muxer: "mp3", codecs: [.mp3],
        requiresSeekableFile: true, capabilities: [.tags, .gapless, .coverArt, .chapters], copiedCut: .mp3Frames)
}
