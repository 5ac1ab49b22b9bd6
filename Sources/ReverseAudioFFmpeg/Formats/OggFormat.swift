import ReverseAudioCore

extension CodecFormat {
    /// Vorbis through libvorbis: at its own quality-based variable rate unless a bit rate is
    /// asked for (as the `ffmpeg` CLI; libvorbis refuses some rate and bit-rate pairs, 192 kb/s
    /// at 96 kHz among them).
    package static let vorbis = CodecFormat(
        name: "vorbis", isLossless: false, encoder: { _ in "libvorbis" }, bitRates: 32_000...500_000, maximumChannels: 8)
}

extension FileFormat {
    /// Ogg Vorbis (`.ogg`, `.oga`): the last page's granule position states the exact end
    /// (libvorbisfile and SoX decode exactly the frames written; FFmpeg 5.1 may give up to a
    /// block more, for its own encodes too).
    package static let ogg = FileFormat(
        name: "ogg", extensions: ["ogg", "oga"], summary: "Ogg Vorbis", muxer: "ogg", codecs: [.vorbis],
        requiresSeekableFile: false, capabilities: [.tags, .gapless])
}
