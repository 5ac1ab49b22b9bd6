import FFmpeg
import Foundation

/// Why an operation failed, phrased so a person can act on it. `description` is one line that
/// names the file and the reason.
public enum ReverseAudioError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The input does not exist.
    case fileNotFound(path: String)
    /// The input is a directory, not a file.
    case isDirectory(path: String)
    /// The input has no bytes at all.
    case emptyFile(path: String)
    /// The input cannot be read (permissions, I/O error).
    case unreadable(path: String, reason: String)
    /// FFmpeg recognises no media format in the input.
    case notMedia(path: String, reason: String)
    /// The input is a media file without an audio stream (e.g. a silent video).
    case noAudioStream(path: String, streams: [String])
    /// No decoder exists for the audio codec.
    case unsupportedCodec(path: String, codec: String)
    /// The requested channel index is not in the file.
    case channelOutOfRange(path: String, channel: Int, channelCount: Int)
    /// Decoding stopped on an error FFmpeg could not skip.
    case decodingFailed(path: String, reason: String)
    /// The output exists and overwriting was not asked for.
    case outputExists(path: String)
    /// The output would replace the input.
    case outputIsInput(path: String)
    /// The output cannot be created where it was asked for.
    case cannotCreateOutput(path: String, reason: String)
    /// Writing the output failed part-way (full disk, file size limit, removed directory).
    case writeFailed(path: String, reason: String)
    /// The reversed-reversed audio is not the original (round-trip verification).
    case verificationFailed(path: String, reason: String)
    /// An option value makes no sense (a block size of 0).
    case invalidOption(String)
    /// FFmpeg recognises no media format in a file given as a video.
    case notVideo(path: String, reason: String)
    /// The input has no video stream (to reverse its audio, `convert --reverse` is the command).
    case noVideoStream(path: String, streams: [String])
    /// The input's video stream cannot be decoded: no decoder in this FFmpeg build, or damage.
    /// `stream` names it ("video stream 0 (h264)").
    case videoStreamFailed(path: String, stream: String, reason: String)
    /// The sound device cannot be opened (no such device, no sound server, busy).
    case deviceUnavailable(name: String, reason: String)
    /// The sound device failed while playing.
    case deviceFailed(name: String, reason: String)

    /// One line that names the file and the reason.
    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .isDirectory(let path):
            return "\(path): is a directory, not an audio file"
        case .emptyFile(let path):
            return "\(path): file is empty (0 bytes)"
        case .unreadable(let path, let reason):
            return "\(path): cannot read: \(reason)"
        case .notMedia(let path, let reason):
            return "\(path): not an audio file FFmpeg can read (\(reason))"
        case .noAudioStream(let path, let streams):
            let found = streams.isEmpty ? "no streams" : streams.joined(separator: ", ") + " only"
            return "\(path): no audio stream (found \(found))"
        case .unsupportedCodec(let path, let codec):
            return "\(path): no decoder for audio codec '\(codec)' in this FFmpeg build"
        case .channelOutOfRange(let path, let channel, let channelCount):
            return "\(path): channel \(channel) does not exist (the file has \(channelCount) channel\(channelCount == 1 ? "" : "s"), numbered from 0)"
        case .decodingFailed(let path, let reason):
            return "\(path): decoding failed: \(reason)"
        case .outputExists(let path):
            return "\(path): output already exists (use -y to overwrite)"
        case .outputIsInput(let path):
            return "\(path): output is the input file; refusing to overwrite it"
        case .cannotCreateOutput(let path, let reason):
            return "\(path): cannot create output: \(reason)"
        case .writeFailed(let path, let reason):
            return "\(path): writing failed: \(reason)"
        case .verificationFailed(let path, let reason):
            return "\(path): round trip failed: \(reason)"
        case .invalidOption(let reason):
            return "invalid option: \(reason)"
        case .notVideo(let path, let reason):
            return "\(path): not a video file FFmpeg can read (\(reason))"
        case .noVideoStream(let path, let streams):
            let found = streams.isEmpty ? "no streams" : streams.joined(separator: ", ") + " only"
            return "\(path): no video stream (found \(found)); to reverse audio, use: reverse-audio convert \(path) OUTPUT --reverse"
        case .videoStreamFailed(let path, let stream, let reason):
            return "\(path): \(stream): \(reason)"
        case .deviceUnavailable(let name, let reason):
            return "sound device '\(name)': cannot open it (\(reason)); render to a file instead with --to-file OUT.wav"
        case .deviceFailed(let name, let reason):
            return "sound device '\(name)': \(reason)"
        }
    }

    /// The same line, for `LocalizedError` users.
    public var errorDescription: String? { description }
}

extension ReverseAudioError {
    /// Runs FFmpeg-facing work for `path`, so that FFmpeg's own error type never reaches the
    /// public API: its failures become ``decodingFailed(path:reason:)`` naming the file.
    static func mappingFFmpegErrors<Result>(path: String, _ work: () throws -> Result) throws -> Result {
        do {
            return try work()
        } catch let error as FFmpegError {
            if error.isInterrupted { throw CancellationError() }
            throw ReverseAudioError.decodingFailed(path: path, reason: "\(error.operation) failed (\(error.message))")
        }
    }
}
