import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioCommandLine

/// One-line messages on standard error, and the exit codes that go with them. The library's
/// errors name its settings; here they gain the flags that change them.
package enum ErrorReporting {
    static func describe(_ error: any Error) -> String {
        if let error = error as? ReverseAudioError { return error.description + advice(for: error) }
        if error is CancellationError { return stoppedBy() + "; no output was left behind" }
        return String(describing: error)
    }

    /// What stopped the work: "stopped by SIGINT", or "cancelled" when no signal did.
    static func stoppedBy() -> String {
        SignalCancellation.receivedSignal.map { "stopped by \(SignalCancellation.signalName($0))" } ?? "cancelled"
    }

    /// What to type instead, for errors a flag can fix.
    static func advice(for error: ReverseAudioError) -> String {
        switch error {
        case .output(.outputExists):
            return " (use -y to overwrite)"
        case .output(.unsupportedSampleRate(_, _, let rate, let supported)):
            let near = supported.min { abs($0 - rate) < abs($1 - rate) } ?? 44100
            return "; add --sample-rate \(near)"
        case .setting(.zoomFinerThanSamples(_, _, let rate)):
            return "; choose at most \(rate / 2) --pixels-per-second, or --samples-per-pixel 2 or more"
        case .output(.tooManyChannels(_, _, _, let maximum)):
            return maximum <= 2 ? "; add --channels mix (or a channel), or choose .m4a or .flac"
                                : "; add --channels mix (or a channel), or choose .wav, .aiff or .caf"
        case .output(.sampleFormatNotStorable(_, _, let format, _)):
            return format == .s32 ? "; choose --sample-format s24, or a WAV, AIFF or CAF output"
                                  : "; choose --sample-format s16 or s24, or a WAV, AIFF or CAF output"
        case .output(.unknownOutputFormat(_, _, let known)) where known.contains("wav"):
            return ", or give --format"
        case .input(.formatMismatch):
            return "; add --convert to resample"
        case .device(.deviceUnavailable):
            return "; render to a file instead with --to-file OUT.wav"
        case .input(.noVideoStream(let path, _)):
            return "; to reverse audio, use: reverse-audio convert \(path) OUTPUT --reverse"
        case .output(.endlessOutput):
            return " (--duration sets one)"
        case .setting(.outOfRange(let setting, _, _)), .setting(.unknownChoice(let setting, _, _)):
            return flag(for: setting).map { " (\($0))" } ?? ""
        case .range(.cannotSeek(_, _, let reason)) where reason.contains("sample rate"):
            return "; convert the range first, then resample"
        default:
            return ""
        }
    }

    /// The flag that sets `setting`.
    private static func flag(for setting: SettingError.Setting) -> String? {
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
        case .waveformZoom: return "--samples-per-pixel, --pixels-per-second, --zoom"
        case .videoContainer: return nil
        case .audioCodec: return "--audio-codec"
        }
    }

    package static func printError(_ error: any Error) {
        Console.error("reverse-audio: error: \(describe(error))")
    }

    /// Prints `warning`, unless `--quiet`.
    static func printWarning(_ warning: ReverseAudioWarning) {
        if Console.isQuiet { return }
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
    /// stopped it (130 for Ctrl-C, 143 for SIGTERM, 129 for a closed terminal), whatever the
    /// error it stopped with; 64 for a usage error (``isUsageError(_:)``); 1 otherwise.
    package static func exitCode(for error: any Error) -> ExitCode {
        if let signal = SignalCancellation.receivedSignal { return ExitCode(SignalCancellation.status(for: signal)) }
        if error is CancellationError { return ExitCode(SignalCancellation.status(for: SIGINT)) }
        if isUsageError(error) { return .validationFailure }
        return .failure
    }

    /// True for a mistake in what was asked, as opposed to a file that failed: a setting out
    /// of its range or not among its choices, an output name no format answers to, a codec its
    /// container cannot hold. All are known from the command line alone.
    static func isUsageError(_ error: any Error) -> Bool {
        if error is CommandLineError { return true }
        switch error as? ReverseAudioError {
        case .range(.invalidRange), .setting(.outOfRange), .setting(.unknownChoice), .output(.unknownOutputFormat), .output(.containerCannotHold),
             .output(.videoContainerCannotHold):
            return true
        default:
            return false
        }
    }
}

extension String {
    /// "2.59 s" style durations.
    static func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.3f s", value)
    }
}
