import FFmpeg
import ReverseAudioCore

extension FFmpegError {
    /// This failure as the library reports it: a cancellation (FFmpeg's interrupt callback) as
    /// `CancellationError`, anything else as `InputError.decodingFailed(path:reason:)`
    /// naming the file, so FFmpeg's own error type never reaches the public API.
    package func reported(path: String) -> any Error {
        if isInterrupted { return CancellationError() }
        return ReverseAudioError.input(.decodingFailed(path: path, reason: "\(operation) failed (\(message))"))
    }

    /// A failure while writing `path`, as the library reports it.
    package func reportedAsWrite(path: String) -> any Error {
        if isInterrupted { return CancellationError() }
        return ReverseAudioError.output(.writeFailed(path: path, reason: "\(operation) failed (\(message))"))
    }
}

/// Runs FFmpeg-facing work for `path`, reporting FFmpeg's failures as the library's.
package func mappingFFmpegErrors<Result>(path: @autoclosure () -> String, _ work: () throws -> Result) throws -> Result {
    do {
        return try work()
    } catch let error as FFmpegError {
        throw error.reported(path: path())
    }
}
