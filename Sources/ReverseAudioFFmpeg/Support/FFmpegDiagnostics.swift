import FFmpeg

/// The FFmpeg libraries in use, and how much they print to standard error themselves.
package enum FFmpegVersions {
    /// "libavformat 59.27.100, libavcodec 59.37.100, ...": the libraries this process linked.
    package static var linked: String { FFmpegLog.libraryVersions }
}

/// Controls FFmpeg's own log messages (process-wide).
///
/// ReverseAudio reports the problems that matter as errors and warnings of its own, so it
/// silences FFmpeg when it first opens a file, unless the application chose a level first.
public enum FFmpegDiagnostics {
    /// How much of FFmpeg's own log reaches standard error.
    public enum Level: Sendable {
        /// Nothing from FFmpeg.
        case quiet
        /// Errors only.
        case errors
        /// Errors and warnings (corrupt frames, misdetections).
        case warnings
        /// Everything FFmpeg explains about its choices.
        case verbose
    }

    /// Sets FFmpeg's log level for the whole process.
    public static func show(_ level: Level) {
        _ = quietByDefault
        switch level {
        case .quiet: FFmpegLog.setLevel(.quiet)
        case .errors: FFmpegLog.setLevel(.error)
        case .warnings: FFmpegLog.setLevel(.warning)
        case .verbose: FFmpegLog.setLevel(.verbose)
        }
    }
}

extension FFmpegDiagnostics {
    /// FFmpeg's warnings and errors, each as one line of ours: the component that logged it
    /// and the message ("ipod: …"), without FFmpeg's pointer, from any thread. The tool prints
    /// them as its own warnings under `--verbose`.
    package static func routeWarnings(to handler: @escaping @Sendable (String) -> Void) {
        _ = quietByDefault
        FFmpegLog.setLevel(.warning)
        FFmpegLog.route { line in handler(readable(line)) }
    }

    /// "[ipod @ 0x55d0c8a0] Warning, …" as "ipod: Warning, …" (the address names nothing a
    /// user can act on); a line without that prefix is left as it is.
    package static func readable(_ line: String) -> String {
        var text = Substring(line)
        var components: [Substring] = []
        // FFmpeg nests a prefix per parent context: "[mp3 @ 0x1] [mp3float @ 0x2] message".
        while text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let inside = text[text.index(after: text.startIndex)..<close]
            components.append(inside.split(separator: " @ ").first ?? inside)
            text = text[text.index(after: close)...].drop { $0 == " " }
        }
        return components.isEmpty ? String(text) : components.joined(separator: "/") + ": " + text
    }

    /// Runs once (a lazy static is initialised exactly once, thread-safely).
    private static let quietByDefault: Void = FFmpegLog.setLevel(.quiet)

    /// Applies the quiet default unless ``show(_:)`` was called before.
    package static func applyDefault() {
        _ = quietByDefault
    }
}
