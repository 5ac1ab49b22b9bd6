import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// An input file opened for its video stream: the demuxer, the stream's parameters and a
/// decoder, with every failure mapped to a ``ReverseAudioError`` that names the file and, for
/// a stream that cannot be decoded, the stream.
final class VideoSource {
    let url: URL
    let demuxer: Demuxer
    let stream: VideoStreamParameters
    let decoder: Decoder
    /// The best audio stream's index, when the file has one.
    let audioStreamIndex: Int?

    /// Opens `url`, which must be a regular file (the video is read group by group from the end,
    /// so the input is sought in, which a pipe cannot do).
    init(url: URL, isCancelled: @escaping @Sendable () -> Bool) throws {
        self.url = url
        let path = url.displayPath
        FFmpegDiagnostics.applyDefault()
        try AudioInput.checkReadableFile(at: url)
        guard AudioInput.isSeekableFile(url) else {
            throw ReverseAudioError.input(.notSeekable(path: path, reason: "a video is read from its end, so it must be a file, not a pipe"))
        }
        do {
            demuxer = try Demuxer(path: url.mediaLocation, isCancelled: isCancelled)
        } catch {
            if error.isInterrupted { throw CancellationError() }
            if let errno = error.posixErrorNumber, errno == ENOENT { throw ReverseAudioError.input(.fileNotFound(path: path)) }
            throw ReverseAudioError.input(.notVideo(path: path, reason: error.message))
        }
        guard let index = demuxer.bestVideoStreamIndex() else {
            throw ReverseAudioError.input(.noVideoStream(path: path, streams: AudioInput.describe(demuxer.streamKinds)))
        }
        stream = demuxer.videoStream(at: index)
        audioStreamIndex = try? demuxer.bestAudioStreamIndex()
        let name = VideoSource.describe(stream)
        do {
            decoder = try Decoder(demuxer: demuxer, streamIndex: index)
        } catch {
            if error.isDecoderNotFound {
                throw ReverseAudioError.input(.videoStreamFailed(path: path, stream: name, reason: "no decoder for this codec in this FFmpeg build"))
            }
            throw ReverseAudioError.input(.videoStreamFailed(path: path, stream: name, reason: "the decoder rejected the stream (\(error.message))"))
        }
        guard stream.width > 0, stream.height > 0 else {
            throw ReverseAudioError.input(.videoStreamFailed(path: path, stream: name, reason: "the stream states no picture size"))
        }
    }

    /// "video stream 0 (h264)": how messages name the stream.
    var streamName: String { VideoSource.describe(stream) }

    private static func describe(_ stream: VideoStreamParameters) -> String {
        "video stream \(stream.index) (\(stream.codecName == "none" ? "a codec FFmpeg does not know" : stream.codecName))"
    }

    /// Runs FFmpeg-facing decoding work, turning FFmpeg's errors into one naming the stream.
    func mappingErrors<Result>(_ work: () throws -> Result) throws -> Result {
        do {
            return try work()
        } catch let error as FFmpegError {
            if error.isInterrupted { throw CancellationError() }
            throw ReverseAudioError.input(.videoStreamFailed(path: url.displayPath, stream: streamName,
                                                      reason: "\(error.operation) failed (\(error.message))"))
        }
    }
}
