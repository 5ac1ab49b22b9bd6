import Foundation
import Testing
import TestSupport

/// The built `reverse-audio` tool, run to completion.
enum CLI {
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run(BuiltProducts.reverseAudio.path, arguments, currentDirectory: directory)
    }

    /// Runs the tool, stopped after `seconds` (by coreutils' `timeout`: SIGTERM, then SIGKILL 5 s
    /// later): a run that hangs ends the test with ``timedOutStatus`` instead of stalling the suite.
    static func run(_ arguments: [String], within seconds: Int) async throws -> ProcessResult {
        try await ProcessRunner.run("timeout", ["-k", "5", String(seconds), BuiltProducts.reverseAudio.path] + arguments)
    }

    /// The status `timeout` exits with when it had to stop the run.
    static let timedOutStatus: Int32 = 124

    /// `convert INPUT OUTPUT [--reverse] OPTIONS...`
    static func convertArguments(_ input: String, _ output: String, reverse: Bool, _ options: [String] = []) -> [String] {
        ["convert", input, output] + (reverse ? ["--reverse"] : []) + options
    }

    static func convert(_ input: URL, _ output: URL, reverse: Bool, _ options: [String] = []) async throws -> ProcessResult {
        try await run(convertArguments(input.path, output.path, reverse: reverse, options))
    }
}

/// One line of JSON output as an object.
func jsonObject(_ line: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
}

extension ProcessResult {
    /// Non-empty lines of standard output.
    var outputLines: [String] { outputText.split(separator: "\n").map(String.init) }
    /// Non-empty lines of standard error.
    var errorLines: [String] { errorText.split(separator: "\n").map(String.init) }
    /// Standard error's `reverse-audio: error: ...` lines.
    var errorReports: [String] { errorLines.filter { $0.hasPrefix("reverse-audio: error: ") } }
    /// Standard error's `reverse-audio: warning: ...` lines: our own warnings about the files (FFmpeg's log, which `--verbose` shows as warnings too, left out).
    var warningReports: [String] {
        errorLines.filter { $0.hasPrefix("reverse-audio: warning: ") && !$0.hasPrefix("reverse-audio: warning: FFmpeg: ") }
    }
}

/// A failed run: non-zero exit and standard error exactly one error line that names `name`.
func expectFailure(_ result: ProcessResult, naming name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status != 0, "exit status", sourceLocation: sourceLocation)
    let lines = result.errorText.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 2 && lines[1].isEmpty, "stderr must be one line, got: \(result.errorText)",
            sourceLocation: sourceLocation)
    let line = lines.first.map(String.init) ?? ""
    #expect(line.hasPrefix("reverse-audio: error: ") && line.contains(name),
            "stderr must be an error naming \(name), got: \(line)", sourceLocation: sourceLocation)
}

/// A usage error: exit 64, one error line that names `name`, then only the usage.
func expectUsageError(_ result: ProcessResult, naming name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == 64, "exit status \(result.status): \(result.errorText)", sourceLocation: sourceLocation)
    let lines = result.errorLines
    let line = lines.first ?? ""
    #expect(line.hasPrefix("reverse-audio: error: ") && line.contains(name),
            "stderr must start with an error naming \(name), got: \(line)", sourceLocation: sourceLocation)
    let rest = lines.dropFirst()
    #expect(rest.allSatisfy { $0.hasPrefix("Usage: ") || $0.hasPrefix("  ") },
            "after the error, only the usage: \(result.errorText)", sourceLocation: sourceLocation)
}

/// `output`'s samples equal ffmpeg's reversal of `original`.
func expectReversal(_ output: URL, of original: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.reversedSamples(of: original),
            "\(output.lastPathComponent) is not \(original.lastPathComponent) reversed", sourceLocation: sourceLocation)
}

/// Copies fixture `name` into `directory` (as `newName`, which may include an existing subfolder).
@discardableResult
func copyFixture(_ name: String, into directory: TemporaryDirectory, as newName: String? = nil) throws -> URL {
    let destination = directory.file(newName ?? name)
    try FileManager.default.copyItem(at: Fixtures.url(name), to: destination)
    return destination
}

/// Everything in `folder`, hidden files included, sorted.
func folderContents(_ folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// Long inputs encoded once per test run by ffmpeg, shared by the suites.
enum LongInputs {
    /// A 30 s stereo 44.1 kHz 16-bit WAV (5.3 MB, about 1300 blocks of 1024 frames).
    static func wav30Seconds() async throws -> URL { try await SignalFiles.shared("thirty-seconds.wav", seconds: 30) }
    /// A 4 min stereo 128 kb/s MP3.
    static func mp3FourMinutes() async throws -> URL {
        try await SignalFiles.shared("four-minutes.mp3", seconds: 240, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
    }
}

extension TemporaryDirectory {
    /// `contents` without the resume records a `reverse` batch keeps (`.reverse-audio-state`).
    var outputs: [String] { contents.filter { $0 != ".reverse-audio-state" } }
}

/// `folderContents(folder)` without the resume records a `reverse` batch keeps.
func outputContents(_ folder: URL) -> [String] {
    folderContents(folder).filter { $0 != ".reverse-audio-state" }
}
