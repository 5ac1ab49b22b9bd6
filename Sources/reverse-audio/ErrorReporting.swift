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
