extension FileFormat {
    /// WebM audio: Opus (or Vorbis) in WebM's Matroska, the pre-skip as its codec delay and the
    /// end as the last block's discard padding.
    package static let webm = FileFormat(
        name: "webm", extensions: ["webm"], summary: "WebM audio: Opus or Vorbis", muxer: "webm", codecs: [.opus, .vorbis],
        requiresSeekableFile: false, capabilities: [.tags, .gapless])
}
