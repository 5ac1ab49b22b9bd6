import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioCommandLine

/// Options `trim`, `join` and `compose` share.
struct EditFlags: ParsableArguments {
    @Option(help: ArgumentHelp(OutputFormatNames.help(extra: "same (the first input's)")))
    var format: String?

    @Flag(help: "Convert inputs whose sample rate or channel count differs from the first input's: resampled, mixed down to mono or remixed, each said in a warning (else an error).")
    var convert = false

    @Option(help: ArgumentHelp(SampleFormatArgument.help(native: "the widest of the inputs', so nothing is narrowed")))
    var sampleFormat: SampleFormatArgument = .native

    @Flag(help: "Decode and encode a lossy input even where its packets could be copied exactly.")
    var reencode = false

    @OptionGroup var effects: EffectFlags

    /// Fails with a usage error when `output` (or `--format`) names no format we write.
    func validate(output: String) throws {
        try ConversionFlags.validateFormat(format == "same" ? nil : format, output: format == "same" ? "x.wav" : output)
    }

    /// Writes `pieces` to `output` and reports, in the tool's style (`--verbose` says how each
    /// piece got into the output: copied, converted and how, re-encoded, silence).
    /// - Parameter otherInputs: files the command reads besides the pieces (a plan): the output
    ///   may not be one of them either, whatever link leads there.
    func write(_ pieces: [Composition.Piece], to output: String, otherInputs: [URL] = [], chaptersPerPiece: Bool = false,
               shared: SingleOutputOptions) async throws {
        let url = StandardStreams.outputURL(output)
        let display = ProgressDisplay(style: shared.progress.style)
        do {
            if otherInputs.contains(where: { OutputFile.isSameFile(url, $0) }) {
                throw ReverseAudioError.output(.outputIsInput(path: url.displayPath))
            }
            let outputFormat = try format.flatMap { $0 == "same" ? nil : try OutputFormat.forFile(url, formatName: $0) }
            var composition = Composition(pieces: pieces, outputFormat: outputFormat, convertsFormats: convert,
                                          overwrite: shared.overwrite, reencodes: reencode, sampleFormat: sampleFormat.format)
            composition.progress = display.handler(file: output, index: 1, count: 1)
            composition.effects = effects.effects
            composition.chaptersPerPiece = chaptersPerPiece
            let written = try await SignalCancellation.run { [composition] in
                try await composition.write(to: url)
            }
            display.clear()
            written.warnings.forEach(ErrorReporting.printWarning)
            if shared.verbosity.verbose { written.paths.enumerated().forEach { Console.error("  piece \($0.offset + 1): \($0.element)") } }
            let seconds = Double(written.frames) / Double(written.format.sampleRate)
            let codec = written.outputFormat.codec ?? "?"
            let summary = "wrote \(output): \(String.seconds(seconds)), \(written.frames) frames, \(written.format), \(written.outputFormat.name) / \(codec)"
            var json: [String: Any] = [
                "output": output, "frames": written.frames, "durationSeconds": seconds, "sampleRate": written.format.sampleRate,
                "channels": written.format.channelCount, "sampleFormat": written.format.sampleFormat.rawValue,
                "container": written.outputFormat.name, "codec": codec, "pieces": written.paths,
                "status": "done", "warnings": written.warnings.map(\.description),
            ]
            if let faded = written.fadedCopy {
                // A copied cut whose fades encoded only the frames under them.
                json["reencodedFrames"] = ["fadeIn": faded.fadeIn, "fadeOut": faded.fadeOut]
                json["copiedShare"] = (faded.copiedShare * 1000).rounded() / 1000
            }
            shared.result.print(summary, json: json, output: url.path)
        } catch {
            display.clear()
            ErrorReporting.printError(error)
            if shared.result.json {
                let line = JSONResultOption.line(ConversionSummary.failedJSON(error, input: pieces.count == 1 ? Self.name(of: pieces[0]) : nil,
                                                                              output: output))
                if Console.isStandardOutput(url.path) { Console.error(line) } else { Console.out(line) }
            }
            throw ErrorReporting.exitCode(for: error)
        }
    }

    /// A piece's file as it was named, for a result line.
    private static func name(of piece: Composition.Piece) -> String? {
        if case .file(let url, _, _, _) = piece { return url.relativePath }
        return nil
    }
}

struct TrimCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Cut a part of a file, exact to the frame, in the file's own format; optionally with silence around it.")

    static let examples = [
        "reverse-audio trim take.wav cut.wav --start 1:02.5 --end 1:10 --pad-start 0.5 --pad-end 1",
        "reverse-audio trim take.flac -o last-ten.flac --tail 10",
        "reverse-audio trim set.mp3 clip.mp3 --start 12:00 --end 15:30 --fade-in 2 --fade-out 3   # only the faded frames re-encoded",
        "arecord -f cd -d 10 | reverse-audio trim - take.wav --start 1",
    ]

    @Argument(help: "The file to cut.", completion: .file())
    var input: String

    @Argument(help: "The file to write (or -o FILE); the input's extension keeps its format.", completion: .file())
    var output: String?

    @OptionGroup var range: RangeFlags

    @Option(help: "Keep only the last T of the file.", transform: TimeValue.position)
    var tail: TimePosition?

    @Option(help: "Silence before the cut (at most 24 hours).", transform: TimeValue.silence)
    var padStart: TimePosition?

    @Option(help: "Silence after the cut (at most 24 hours).", transform: TimeValue.silence)
    var padEnd: TimePosition?

    @OptionGroup var flags: EditFlags

    @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
    var verbosity: VerbosityOptions { shared.verbosity }

    func validate() throws {
        if tail != nil && range.isGiven { throw ValidationError("--tail goes alone, without --start, --end or --duration") }
        try flags.validate(output: try shared.output(positional: output, command: "trim"))
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
        try await flags.write(pieces, to: try shared.output(positional: output, command: "trim"), shared: shared)
    }
}

struct JoinCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Put files end to end, in the first file's format, optionally with silence between.")

    static let examples = [
        "reverse-audio join intro.wav verse.wav outro.wav -o song.wav --gap 0.25",
        "reverse-audio join a.mp3 b.mp3 -o both.mp3 --convert --json",
        "reverse-audio join 01.m4a 02.m4a 03.m4a -o book.m4b --chapters   # a chapter per file",
    ]

    @Argument(help: "The files to join, in order.", completion: .file())
    var inputs: [String]

    @Option(help: "Silence between the files (at most 24 hours).", transform: TimeValue.silence)
    var gap: TimePosition?

    @Flag(help: "One chapter per file (.m4a, .m4b, .mp3), titled by its title tag, else its name.")
    var chapters = false

    @OptionGroup var flags: EditFlags

    @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
    var verbosity: VerbosityOptions { shared.verbosity }

    func validate() throws {
        try flags.validate(output: try shared.output(command: "join"))
    }

    func run() async throws {
        var pieces: [Composition.Piece] = []
        for (index, input) in inputs.enumerated() {
            if index > 0, let gap { pieces.append(.silence(gap)) }
            pieces.append(.file(try ErrorReporting.exitingOnFailure { try StandardStreams.seekableInputURL(input) }))
        }
        try await flags.write(pieces, to: try shared.output(command: "join"), chaptersPerPiece: chapters, shared: shared)
    }
}

struct ComposeCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Build a file from a plan: one piece per line, FILE [START] [END] [reverse] or silence DURATION.")

    static let examples = [
        "printf \"take.wav 0 2\\nsilence 0.5\\ntake.wav 0 2 reverse\\n\" > plan.txt   # a plan: one piece a line",
        "reverse-audio compose plan.txt -o collage.flac",
    ]

    @Argument(help: "The plan file.", completion: .file())
    var plan: String

    @Flag(help: "One chapter per file piece (.m4a, .m4b, .mp3), titled by its title tag, else its name.")
    var chapters = false

    @OptionGroup var flags: EditFlags

    @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
    var verbosity: VerbosityOptions { shared.verbosity }

    func validate() throws {
        try flags.validate(output: try shared.output(command: "compose"))
    }

    func run() async throws {
        let pieces = try ErrorReporting.exitingOnFailure {
            let url = URL(fileURLWithPath: plan)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw ReverseAudioError.input(.fileNotFound(path: plan))
            }
            guard !isFolder.boolValue, FileManager.default.isReadableFile(atPath: url.path) else {
                throw ReverseAudioError.input(.unreadable(path: plan, reason: isFolder.boolValue ? "it is a folder, not a plan" : "permission denied"))
            }
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw ReverseAudioError.input(.unreadable(path: url.displayPath, reason: "the plan is not UTF-8 text"))
            }
            return try PlanParser.parse(text, relativeTo: url.deletingLastPathComponent(), name: url.displayPath)
        }
        try await flags.write(pieces, to: try shared.output(command: "compose"), otherInputs: [URL(fileURLWithPath: plan)],
                              chaptersPerPiece: chapters, shared: shared)
    }
}
