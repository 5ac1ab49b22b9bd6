/// One video stream of a file whose audio is described (``AudioInfo/videoStreams``), as
/// `ffprobe` reports it: what `info` lists beside the audio.
package struct VideoStreamInfo: Sendable, Equatable, Encodable {
    /// The stream's index in the file.
    package let index: Int
    /// FFmpeg's codec name ("h264", "hevc", "mjpeg").
    package let codec: String
    /// Width in pixels, as coded.
    package let width: Int
    /// Height in pixels, as coded.
    package let height: Int
    /// Average frames per second, when the container or FFmpeg's probe knows it.
    package let frameRate: Double?
    /// The stream's length in seconds as the container states it.
    package let duration: Double?
    /// True for a still picture attached to the file (cover art), not a moving video.
    package let isAttachedPicture: Bool

    /// Makes a description from its parts (the library makes these when it reads a file).
    package init(index: Int, codec: String, width: Int, height: Int, frameRate: Double?, duration: Double?, isAttachedPicture: Bool) {
        self.index = index
        self.codec = codec
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.duration = duration
        self.isAttachedPicture = isAttachedPicture
    }

    /// The JSON keys (`info --json`).
    enum CodingKeys: String, CodingKey {
        case index, codec, width, height, frameRate
        case duration = "durationSeconds"
        case isAttachedPicture = "attachedPicture"
    }

    /// Encodes unknown figures as JSON `null`, so every object has the same keys.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(codec, forKey: .codec)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(frameRate, forKey: .frameRate)
        try container.encode(duration, forKey: .duration)
        try container.encode(isAttachedPicture, forKey: .isAttachedPicture)
    }
}
