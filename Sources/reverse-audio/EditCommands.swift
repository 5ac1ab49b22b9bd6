import ArgumentParser
import Foundation
import ReverseAudio

/// Options `trim`, `join` and `compose` share.
struct EditFlags: ParsableArguments {
    @Option(help: "Output format when the name does not say it: wav, aiff, caf, flac, m4a, mp3, aac, or same (the first input's).")
    var format: String?

    @Flag(help: "Resample inputs whose sample rate differs from the first input's (else an error).")
    var convert = false

    @Flag(name: .customShort("y"), help: "Overwrite an existing output (never an input).")
    var overwrite = false

    @Flag(help: "Decode and encode a lossy input even where its packets could be copied exactly.")
    var reencode = false

    @Flag(help: "Say how each piece got into the output (copied, re-encoded, silence).")
    var verbose = false

    func validate() throws {
        if let format, format != "same" { try ConversionFlags.validateFormat(format) }
    }

    /// Writes `pieces` to `output` and reports, in the tool's style.
    func write(_ pieces: [Composition.Piece], to output: String) async throws {
        FFmpegDiagnostics.show(.quiet)
        let url = StandardStreams.outputURL(output)
        do {
            let outputFormat = try format.flatMap { $0 == "same" ? nil : try OutputFormat.forFile(url, formatName: $0) }
            let composition = Composition(pieces: pieces, outputFormat: outputFormat, convertsFormats: convert,
                                          overwrite: overwrite, reencodes: reencode)
            let result = try await SignalCancellation.run {
                try await composition.write(to: url)
            }
            result.warnings.forEach(ErrorReporting.printWarning)
            if verbose { result.paths.enumerated().forEach { Console.error("  piece \($0.offset + 1): \($0.element)") } }
            let seconds = String.seconds(Double(result.frames) / Double(result.format.sampleRate))
            let summary = "wrote \(output): \(seconds), \(result.frames) frames, \(result.format), \(result.outputFormat.container.rawValue) / \(result.outputFormat.codec?.rawValue ?? "?")"
            if Console.isStandardOutput(url.path) { Console.error(summary) } else { Console.out(summary) }
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}

struct TrimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Cut a part of a file, exact to the frame, in the file's own format; optionally with silence around it.")

    @Argument(help: "The file to cut.", completion: .file())
    var input: String

    @Argument(help: "The file to write (the input's extension keeps its format).", completion: .file())
    var output: String

    @OptionGroup var range: RangeFlags

    @Option(help: "Keep only the last T of the file.")
    var tail: TimePosition?

    @Option(help: "Silence before the cut.")
    var padStart: TimePosition?

    @Option(help: "Silence after the cut.")
    var padEnd: TimePosition?

    @OptionGroup var flags: EditFlags

    func validate() throws {
        if tail != nil && range.isGiven { throw ValidationError("--tail goes alone, without --start, --end or --duration") }
    }

    func run() async throws {
        let (url, cut) = try ErrorReporting.exitingOnFailure { () throws -> (URL, TimeRange?) in
            let url = try StandardStreams.seekableInputURL(input)
            guard let tail else { return (url, try range.range()) }
            let info = try AudioInfo.read(from: url)
            guard let frames = info.frames else {
                throw CommandLineError("\(input): its length cannot be known without decoding it, so --tail cannot tell where to start; give --start")
            }
            return (url, try TimeRange(start: .frames(max(0, frames - tail.frame(atRate: info.sampleRate)))))
        }
        let pieces = (padStart.map { [Composition.Piece.silence($0)] } ?? []) + [.file(url, range: cut)]
            + (padEnd.map { [Composition.Piece.silence($0)] } ?? [])
        try await flags.write(pieces, to: output)
    }
}

struct JoinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Put files end to end, in the first file's format, optionally with silence between.")

    @Argument(help: "The files to join, in order.", completion: .file())
    var inputs: [String]

    @Option(name: [.customShort("o"), .long], help: "The file to write.", completion: .file())
    var output: String

    @Option(help: "Silence between the files.")
    var gap: TimePosition?

    @OptionGroup var flags: EditFlags

    func run() async throws {
        var pieces: [Composition.Piece] = []
        for (index, input) in inputs.enumerated() {
            if index > 0, let gap { pieces.append(.silence(gap)) }
            pieces.append(.file(try ErrorReporting.exitingOnFailure { try StandardStreams.seekableInputURL(input) }))
        }
        try await flags.write(pieces, to: output)
    }
}

struct ComposeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Build a file from a plan: one piece per line, FILE [START] [END] [reverse] or silence DURATION.")

    @Argument(help: "The plan file.", completion: .file())
    var plan: String

    @Option(name: [.customShort("o"), .long], help: "The file to write.", completion: .file())
    var output: String

    @OptionGroup var flags: EditFlags

    func run() async throws {
        let pieces = try ErrorReporting.exitingOnFailure {
            let url = URL(fileURLWithPath: plan)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw ReverseAudioError.fileNotFound(path: plan)
            }
            guard !isFolder.boolValue, FileManager.default.isReadableFile(atPath: url.path) else {
                throw ReverseAudioError.unreadable(path: plan, reason: isFolder.boolValue ? "it is a folder, not a plan" : "permission denied")
            }
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw ReverseAudioError.unreadable(path: plan, reason: "the plan is not UTF-8 text")
            }
            return try PlanParser.parse(text, relativeTo: url.deletingLastPathComponent(), name: plan)
        }
        try await flags.write(pieces, to: output)
    }
}
