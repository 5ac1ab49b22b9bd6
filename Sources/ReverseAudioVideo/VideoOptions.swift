import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// How a video is reversed: direction, picture quality, audio, and the memory it may use.
public struct VideoOptions: Sendable, Equatable {
    /// What happens to the input's audio.
    public enum AudioHandling: String, Sendable, CaseIterable {
        /// The whole track reversed as one continuous stream (no seams), encoded once.
        case reverse
        /// The track copied as it is, forwards (packets unchanged).
        case keep
        /// No audio in the output.
        case none
    }

    /// The codec of the output's audio.
    public enum AudioCodec: String, Sendable, CaseIterable {
        /// AAC-LC, FFmpeg's encoder (any container).
        case aac
        /// Apple Lossless (any container).
        case alac
        /// FLAC (`.mkv` only: FFmpeg 5.1 stores it in MP4 only as an experiment).
        case flac
        /// Uncompressed samples in the decoder's own format (`.mov` and `.mkv`).
        case pcm
    }

    /// How the pictures are compressed (H.264 through libx264).
    public enum Quality: Sendable, Equatable {
        /// x264's constant rate factor, 0…51 (18, the default, is visually transparent).
        case crf(Double)
        /// x264 at quantiser 0: 8-bit 4:2:0 pictures decode exactly as they were decoded from
        /// the input (High 4:4:4 Predictive profile, which not every player plays).
        case lossless
    }

    /// The default ``memoryLimit``: 32 MiB of decoded pictures. More buys little: the pictures
    /// past it go through the page cache on their way to a temporary file (a 720p 40 s reversal:
    /// 256 MiB took 5.85 s and 360 MiB of memory, 32 MiB about 6.2 s and the forward encode's + 30).
    package static let defaultMemoryLimit = 32 << 20

    /// x264's presets, fastest first (``preset`` must be one of them).
    package static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow",
                                 "slower", "veryslow", "placebo"]

    /// Forward, then reversed: frames 0…n−1 then n−2…0 (the turn frame once); the audio is the
    /// forward audio followed by its reverse.
    public var boomerang: Bool
    /// What happens to the audio.
    public var audio: AudioHandling
    /// Picture quality.
    public var quality: Quality
    /// x264's preset (speed against size), "medium" by default.
    public var preset: String
    /// The audio codec; nil means AAC.
    public var audioCodec: AudioCodec?
    /// Bits per second for AAC; nil means the input's AAC rate, else 96 kb/s a channel for mono and stereo, 64 kb/s a channel beyond.
    public var audioBitRate: Int?
    /// Bytes of decoded pictures one group of pictures may hold in memory; the rest of a longer
    /// group waits in a temporary file. Peak memory follows this, never the video's length.
    package var memoryLimit: Int
    /// Replace an existing output (never the input).
    public var overwrite: Bool
    /// Where pictures that do not fit in memory wait; nil means beside the output.
    package var temporaryDirectory: URL?

    /// The defaults of `reverse-audio video`: reversed, CRF 18, preset medium, audio reversed into AAC, 32 MiB.
    public init(boomerang: Bool = false, audio: AudioHandling = .reverse, quality: Quality = .crf(18),
                preset: String = "medium", audioCodec: AudioCodec? = nil, audioBitRate: Int? = nil,
                memoryLimit: Int = 32 << 20, overwrite: Bool = false, temporaryDirectory: URL? = nil) {
        self.boomerang = boomerang
        self.audio = audio
        self.quality = quality
        self.preset = preset
        self.audioCodec = audioCodec
        self.audioBitRate = audioBitRate
        self.memoryLimit = memoryLimit
        self.overwrite = overwrite
        self.temporaryDirectory = temporaryDirectory
    }

    /// Refuses values x264 or the memory model cannot work with, naming the valid ones.
    package func validate() throws {
        if case .crf(let value) = quality, !(0...51).contains(value) {
            throw ReverseAudioError.setting(.outOfRange(.crf, value: "\(value)", allowed: "0 to 51"))
        }
        guard VideoOptions.presets.contains(preset) else {
            throw ReverseAudioError.setting(.unknownChoice(.preset, value: preset, choices: VideoOptions.presets))
        }
        guard memoryLimit >= 0 else {
            throw ReverseAudioError.setting(.outOfRange(.memoryLimit, value: "\(memoryLimit) bytes", allowed: "0 bytes or more"))
        }
        if let audioBitRate, audioBitRate < 8000 || audioBitRate > 1_536_000 {
            throw ReverseAudioError.setting(.outOfRange(.audioBitRate, value: "\(audioBitRate / 1000) kb/s", allowed: "8 to 1536 kb/s"))
        }
    }
}
