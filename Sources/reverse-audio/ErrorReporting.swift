import ArgumentParser
import Foundation
import ReverseAudio

/// One-line messages on standard error, and the exit codes that go with them. The library's
/// errors name its settings; here they gain the flags that change them.
enum ErrorReporting {
    static func describe(_ error: any Error) -> String {
        if let error = error as? ReverseAudioError { return error.description + advice(for: error) }
        if error is CancellationError { return "cancelled; no output was left behind" }
        return String(describing: error)
    }

    /// What to type instead, for errors a flag can fix.
    static func advice(for error: ReverseAudioError) -> String {
        switch error {
        case .outputExists:
            return " (use -y to overwrite)"
        case .unsupportedSampleRate(_, _, let rate, let supported):
            let near = supported.min { abs($0 - rate) < abs($1 - rate) } ?? 44100
            return "; add --sample-rate \(near)"
        case .tooManyChannels:
            return "; add --channels mix (or a channel), or choose .m4a or .flac"
        case .sampleFormatNotStorable(_, _, let format, _):
            return format == .s32 ? "; choose --sample-format s24, or a WAV, AIFF or CAF output"
                                  : "; choose --sample-format s16 or s24, or a WAV, AIFF or CAF output"
        case .unknownOutputFormat(_, _, let known) where known.contains("wav"):
            return ", or give --format"
        case .formatMismatch:
            return "; add --convert to resample"
        case .deviceUnavailable:
            return "; render to a file instead with --to-file OUT.wav"
        case .noVideoStream(let path, _):
            return "; to reverse audio, use: reverse-audio convert \(path) OUTPUT --reverse"
        case .endlessOutput:
            return " (--duration sets one)"
        case .settingOutOfRange(let setting, _, _), .unknownChoice(let setting, _, _):
            return flag(for: setting).map { " (\($0))" } ?? ""
        case .cannotSeek(_, _, let reason) where reason.contains("sample rate"):
            return "; convert the range first, then resample"
        default:
            return ""
        }
    }

    /// The flag that sets `setting`.
    private static func flag(for setting: ReverseAudioError.Setting) -> String? {
        switch setting {
        case .bitRate: return "--bitrate"
        case .blockFrames: return "--block-frames"
        case .sampleRate: return "--sample-rate"
        case .outputFormat: return "--format"
        case .crf: return "--crf"
        case .preset: return "--preset"
        case .memoryLimit: return "--memory-limit"
        case .audioBitRate: return "--audio-bitrate"
        case .waveformSize: return "--width, --height"
        case .videoContainer: return nil
        case .audioCodec: return "--audio-codec"
        }
    }

    static func printError(_ error: any Error) {
        Console.error("reverse-audio: error: \(describe(error))")
    }

    static func printWarning(_ warning: ReverseAudioWarning) {
        Console.error("reverse-audio: warning: \(warning.subject): \(warning.description)")
    }

    /// Runs `body`; on failure prints the error's one line and exits with its status.
    static func exitingOnFailure<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch {
            printError(error)
            throw exitCode(for: error)
        }
    }

    /// The exit code for a run that ended with `error`: 128 + the signal's number when a signal
    /// stopped it (130 for Ctrl-C, 143 for SIGTERM, 129 for a closed terminal), 1 otherwise.
    static func exitCode(for error: any Error) -> ExitCode {
        guard error is CancellationError else { return .failure }
        return ExitCode(128 + (SignalCancellation.receivedSignal ?? SIGINT))
    }
}

extension String {
    /// "2.59 s" style durations.
    static func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.3f s", value)
    }
}
