import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// What a video reversal did.
public struct VideoResult: Sendable {
    /// The file read.
    public let input: URL
    /// The file written.
    public let output: URL
    /// True for a boomerang (forward, then reversed).
    package let boomerang: Bool
    /// The input's video codec ("h264").
    package let codec: String
    /// Frames the input shows, as decoded.
    public let inputFrames: Int
    /// Frames written: the input's for a reversal, twice less one for a boomerang.
    public let outputFrames: Int
    /// The input's picture size.
    package let width: Int
    /// The input's picture height.
    package let height: Int
    /// The output's picture size (one pixel larger where H.264 needs an even size).
    package let outputWidth: Int
    /// The output's picture height.
    package let outputHeight: Int
    /// The output's length in seconds.
    public let duration: Double
    /// Groups of pictures (keyframe to keyframe) decoded one by one.
    package let groups: Int
    /// Decodes run: one per group, or fewer where neighbouring groups fitted in memory together.
    package let decodeRuns: Int
    /// Frames in the largest group.
    package let largestGroup: Int
    /// Pictures that did not fit in the memory limit and waited in the temporary file.
    package let spilledFrames: Int
    /// The most bytes of decoded pictures held in memory at once.
    package let peakPictureBytes: Int
    /// The temporary file's largest size (0 when every group fitted in memory).
    package let temporaryBytes: Int64
    /// What the output's audio is ("reversed: AAC 192 kb/s, 2 channels, 44100 Hz", "none: …").
    public let audio: String
    /// What changed on the way (pixel format, size), one phrase each; empty when the pictures
    /// went in as they were decoded.
    package let conversions: [String]
    /// Problems that did not stop the work (skipped packets, rotation a container cannot state).
    public let warnings: [ReverseAudioWarning]
}
