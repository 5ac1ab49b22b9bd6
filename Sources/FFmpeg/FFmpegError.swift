import CFFmpeg

/// A failed FFmpeg call: the library's error code and `av_strerror` text, what we were doing,
/// and on which file.
package struct FFmpegError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The negative `AVERROR` value FFmpeg returned.
    package let code: Int32
    /// What we were doing, phrased to follow "while": "opening the file", "decoding a packet".
    package let operation: String
    /// The file involved, when there is one.
    package let path: String?
    /// FFmpeg's own text for `code`, from `av_strerror`.
    package let message: String

    /// - Parameter message: our own explanation, where FFmpeg's text for `code` would mislead.
    package init(code: Int32, operation: String, path: String? = nil, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.path = path
        self.message = message ?? FFmpegError.text(for: code)
    }

    package var description: String {
        let place = path.map { "\($0): " } ?? ""
        return "\(place)\(operation) failed: \(message)"
    }

    /// True for `AVERROR_EOF`, which is how FFmpeg says a stream has ended.
    package var isEndOfFile: Bool { code == ra_averror_eof() }
    /// True for `AVERROR_INVALIDDATA`: the bytes are not what the format or codec expects.
    package var isInvalidData: Bool { code == ra_averror_invaliddata() }
    /// True when FFmpeg reports an out-of-memory condition.
    package var isOutOfMemory: Bool { code == ra_averror_enomem() }
    /// True when FFmpeg has no decoder for the codec.
    package var isDecoderNotFound: Bool { code == ra_averror_decoder_not_found() }
    /// True for the code our interrupt callback makes FFmpeg return after a cancellation.
    package var isInterrupted: Bool { code == ra_averror_exit() }

    /// The POSIX errno behind the code, when FFmpeg built it with `AVERROR(errno)`.
    package var posixErrorNumber: Int32? {
        // AVERROR(e) is -e on every platform FFmpeg supports; FFERRTAG codes are far below.
        code < 0 && code > -4096 ? -code : nil
    }

    /// FFmpeg's text for `AVERROR_INVALIDDATA`, the reason a decoder gives for a packet it rejects.
    package static var invalidDataText: String { text(for: ra_averror_invaliddata()) }

    /// FFmpeg's text for an error code.
    package static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 {
            return "unknown FFmpeg error \(code)"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension FFmpegError {
    /// Throws when `result` is negative; returns it otherwise.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String, path: String? = nil) throws(FFmpegError) -> Int32 {
        if result < 0 { throw FFmpegError(code: result, operation: operation(), path: path) }
        return result
    }

    static func outOfMemory(_ operation: String, path: String? = nil) -> FFmpegError {
        FFmpegError(code: ra_averror_enomem(), operation: operation, path: path)
    }

    /// The error FFmpeg's interrupt callback makes it return: the work was cancelled.
    package static func interrupted(_ operation: String, path: String? = nil) -> FFmpegError {
        FFmpegError(code: ra_averror_exit(), operation: operation, path: path)
    }

    static func invalidArgument(_ operation: String, path: String? = nil) -> FFmpegError {
        FFmpegError(code: ra_averror_einval(), operation: operation, path: path)
    }
}
