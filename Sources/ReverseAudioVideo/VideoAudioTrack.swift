import ReverseAudioCore
import ReverseAudioFFmpeg
import FFmpeg

/// The audio of a reversed video: a stream added to the output before its header, then written
/// a little ahead of the pictures so libavformat can interleave the two in little memory.
protocol VideoAudioTrack: AnyObject {
    /// Adds the audio stream to `muxer` (before its header is written).
    func attach(to muxer: Muxer) throws
    /// Writes the audio up to `seconds` of output time.
    func advance(through seconds: Double) throws
    /// Writes what is left and drains the encoder.
    func finish() throws
    /// What the output's audio is, for the summary ("reversed, AAC 192 kb/s, 2 channels").
    var summary: String { get }
    /// Problems met that did not stop the work.
    var warnings: [ReverseAudioWarning] { get }
}
