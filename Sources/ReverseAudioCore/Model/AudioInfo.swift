import Foundation

/// What a file is: container, codec and PCM shape, as `ffprobe` would report them, plus the
/// number of frames a decode produces, known without decoding.
public struct AudioInfo: Sendable, Equatable, Encodable {
    /// The file as it was named.
    public let path: String
    /// FFmpeg's short container name ("wav", "mp3", "mov,mp4,m4a,3gp,3g2,mj2").
    public let container: String
    /// FFmpeg's descriptive container name.
    package let containerName: String
    /// FFmpeg's codec name ("pcm_s16le", "mp3", "aac", "flac", "alac").
    public let codec: String
    /// FFmpeg's descriptive codec name.
    package let codecName: String
    /// Frames per second.
    public let sampleRate: Int
    /// Channels per frame.
    public let channelCount: Int
    /// "mono", "stereo", "5.1"...; nil when the file gives only a channel count.
    public let channelLayout: String?

    /// The layout as the `ffmpeg` CLI names it: the file's own, or, for one or two channels
    /// that the file does not place, "mono" or "stereo" (what ffmpeg guesses for them, its
    /// `guess_layout_max` being 2); nil for more channels without a layout.
    package var layoutName: String? {
        channelLayout ?? (channelCount == 1 ? "mono" : channelCount == 2 ? "stereo" : nil)
    }
    /// The decoder's native sample format ("s16", "s32", "fltp").
    public let sampleFormat: String?
    /// Bits per sample as stored, for PCM and lossless codecs.
    package let bitsPerSample: Int?
    /// The length in seconds: ``frames`` ÷ ``sampleRate`` when the frame count is known (what
    /// a decode gives, the same figure every command shows), else the container's figure
    /// (an estimate, as ``framesSource`` says).
    public var duration: Double? {
        if let frames, sampleRate > 0 { return Double(frames) / Double(sampleRate) }
        return containerDuration
    }
    /// True when ``duration`` is only the container's statement or FFmpeg's estimate.
    package var durationIsEstimate: Bool { frames == nil && containerDuration != nil }
    /// The length in seconds as the container states it (or FFmpeg estimates it from the bit
    /// rate), which may differ from what a decode gives (an MP3 without a gapless tag, CAF).
    package let containerDuration: Double?
    /// The file's tags (title, artist, album, date, genre, track, comment…), as FFmpeg names them.
    public let tags: [String: String]
    /// Sample frames a decode produces, known without decoding: stated by the container for PCM
    /// and FLAC, counted from the packets otherwise; nil when neither tells. Exact for intact
    /// files; a damaged file or a container that misstates its length decodes to another count
    /// (a conversion then warns and uses the decoded length).
    public let frames: Int64?
    /// Where ``frames`` came from: the container's statement (PCM data size, FLAC STREAMINFO:
    /// exact unless the header is wrong, which a conversion detects and reports) or the packets.
    public let framesSource: LengthSource?
    /// Total bit rate in bits per second (the container's: every stream together).
    public let bitRate: Int?
    /// The audio stream's own bit rate in bits per second, when the container or codec states it.
    package let streamBitRate: Int?
    /// The file's video streams (a video file's pictures, an MP3's cover art), in file order.
    package let videoStreams: [VideoStreamInfo]

    /// Makes a description from its parts (the library makes these with `read(from:)`).
    package init(path: String, container: String, containerName: String, codec: String, codecName: String,
                sampleRate: Int, channelCount: Int, channelLayout: String?, sampleFormat: String?,
                bitsPerSample: Int?, containerDuration: Double?, frames: Int64?, bitRate: Int?,
                tags: [String: String] = [:], framesSource: LengthSource? = nil, streamBitRate: Int? = nil,
                videoStreams: [VideoStreamInfo] = []) {
        self.path = path
        self.container = container
        self.containerName = containerName
        self.codec = codec
        self.codecName = codecName
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.channelLayout = channelLayout
        self.sampleFormat = sampleFormat
        self.bitsPerSample = bitsPerSample
        self.containerDuration = containerDuration
        self.tags = tags
        self.framesSource = frames == nil ? nil : framesSource
        self.frames = frames
        self.bitRate = bitRate
        self.streamBitRate = streamBitRate
        self.videoStreams = videoStreams
    }

    /// The description of a caller's source named `name`: raw PCM in `format`, `frames` long
    /// when known.
    package init(source name: String, format: PCMFormat, frames: Int64?, framesSource: LengthSource) {
        self.init(path: name, container: "PCM source", containerName: "pcm", codec: "PCM \(format.sampleFormat)",
                  codecName: "pcm_\(format.sampleFormat)", sampleRate: format.sampleRate, channelCount: format.channelCount,
                  channelLayout: format.channelLayoutName, sampleFormat: "\(format.sampleFormat)",
                  bitsPerSample: format.sampleFormat.bytesPerSample * 8, containerDuration: nil, frames: frames, bitRate: nil,
                  framesSource: framesSource)
    }

    /// Encodes `frames`, `channelLayout` and friends as JSON `null` when unknown, rather than
    /// leaving the key out, so every object has the same keys.
    /// The JSON keys (`info --json`), kept as they were first published.
    enum CodingKeys: String, CodingKey {
        case path, container, containerName, codec, codecName, sampleRate
        case channelCount = "channels"
        case channelLayout, sampleFormat, bitsPerSample
        case duration = "durationSeconds"
        case durationIsEstimate
        case containerDuration = "containerDurationSeconds"
        case frames
        case framesSource = "framesFrom"
        case bitRate, streamBitRate, videoStreams, tags
    }

    /// Encodes `frames`, `channelLayout` and friends as JSON `null` when unknown, so every object has the same keys.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(self.container, forKey: .container)
        try container.encode(containerName, forKey: .containerName)
        try container.encode(codec, forKey: .codec)
        try container.encode(codecName, forKey: .codecName)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(channelCount, forKey: .channelCount)
        try container.encode(channelLayout, forKey: .channelLayout)
        try container.encode(sampleFormat, forKey: .sampleFormat)
        try container.encode(bitsPerSample, forKey: .bitsPerSample)
        try container.encode(duration, forKey: .duration)
        try container.encode(durationIsEstimate, forKey: .durationIsEstimate)
        try container.encode(containerDuration, forKey: .containerDuration)
        try container.encode(frames, forKey: .frames)
        try container.encode(framesSource, forKey: .framesSource)
        try container.encode(bitRate, forKey: .bitRate)
        try container.encode(streamBitRate, forKey: .streamBitRate)
        try container.encode(videoStreams, forKey: .videoStreams)
        try container.encode(tags, forKey: .tags)
    }
}
