import CFFmpeg
import Foundation

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

    /// Sends every message FFmpeg logs at the level set or above to `handler`, one line each
    /// (its trailing newline removed), from whichever thread logged it; nil prints them on
    /// standard error again, as FFmpeg does by itself.
    package static func route(_ handler: (@Sendable (String) -> Void)?) {
        RoutedLog.set(handler)
        ra_log_route(handler == nil ? nil : { _, piece in
            guard let piece else { return }
            RoutedLog.take(String(cString: piece))
        })
    }

    /// The versions of the FFmpeg libraries we were linked with, as "libavformat 59.27.100, ...".
    package static var libraryVersions: String {
        func version(_ number: UInt32) -> String { "\(number >> 16).\((number >> 8) & 0xFF).\(number & 0xFF)" }
        return "libavformat \(version(avformat_version())), libavcodec \(version(avcodec_version())), "
            + "libswresample \(version(swresample_version())), libavutil \(version(avutil_version()))"
    }
}

/// Where routed log lines go: set by ``FFmpegLog/route(_:)``, read by the C callback on any
/// thread, under `lock`.
private enum RoutedLog {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var handler: (@Sendable (String) -> Void)?

    static func set(_ newHandler: (@Sendable (String) -> Void)?) {
        lock.lock(); handler = newHandler; lock.unlock()
    }

    /// The text of a message not yet ended by a newline.
    nonisolated(unsafe) private static var pending = ""

    /// Takes a piece of a message; hands each whole line to the handler.
    static func take(_ piece: String) {
        lock.lock()
        pending += piece
        guard pending.last?.isNewline == true, let handler else { lock.unlock(); return }
        let lines = pending.split(whereSeparator: \.isNewline).map(String.init)
        pending = ""
        lock.unlock()
        for line in lines where !line.trimmingCharacters(in: .whitespaces).isEmpty { handler(line) }
    }
}
