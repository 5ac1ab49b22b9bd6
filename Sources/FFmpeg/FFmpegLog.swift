import CFFmpeg

/// How much FFmpeg itself prints to standard error (process-wide).
package enum FFmpegLog {
    package enum Level: Sendable {
        case quiet, error, warning, info, verbose

        var rawValue: Int32 {
            switch self {
            case .quiet: return AV_LOG_QUIET
            case .error: return AV_LOG_ERROR
            case .warning: return AV_LOG_WARNING
            case .info: return AV_LOG_INFO
            case .verbose: return AV_LOG_VERBOSE
            }
        }
    }

    package static func setLevel(_ level: Level) { av_log_set_level(level.rawValue) }

    /// The versions of the FFmpeg libraries we were linked with, as "libavformat 59.27.100, ...".
    package static var libraryVersions: String {
        func version(_ number: UInt32) -> String { "\(number >> 16).\((number >> 8) & 0xFF).\(number & 0xFF)" }
        return "libavformat \(version(avformat_version())), libavcodec \(version(avcodec_version())), "
            + "libswresample \(version(swresample_version())), libavutil \(version(avutil_version()))"
    }
}
