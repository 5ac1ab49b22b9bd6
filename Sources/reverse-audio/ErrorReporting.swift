import ArgumentParser
import Foundation
import ReverseAudio

/// One-line messages on standard error, and the exit codes that go with them.
enum ErrorReporting {
    static func describe(_ error: any Error) -> String {
        if let error = error as? ReverseAudioError { return error.description }
        if error is CancellationError { return "cancelled; no output was left behind" }
        return String(describing: error)
    }

    static func printError(_ error: any Error) {
        Console.error("reverse-audio: error: \(describe(error))")
    }

    static func printWarning(_ warning: String, file: String) {
        Console.error("reverse-audio: warning: \(file): \(warning)")
    }

    /// The exit code for a run that ended with `error`: 130 for an interrupt, 1 otherwise.
    static func exitCode(for error: any Error) -> ExitCode {
        error is CancellationError ? ExitCode(130) : .failure
    }
}

extension String {
    /// "2.59 s" style durations.
    static func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.3f s", value)
    }
}
