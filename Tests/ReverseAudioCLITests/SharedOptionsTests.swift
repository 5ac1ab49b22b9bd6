import Foundation
import Testing
import TestSupport

/// One option set on every subcommand (issue 20): `-o`, `-y`/`-n`, `--progress`, `--verbose`,
/// `--quiet` and `--json` are accepted, and mean the same, wherever they apply.
@Suite(.runsProcesses) struct SharedOptionsTests {
    /// An option family, and what each command that has it must do with it.
    enum Family: String, CaseIterable, CustomTestStringConvertible {
        case output, overwrite, progress, verbosity, json
        var testDescription: String { rawValue }
    }

    /// A subcommand run that succeeds, in a fresh folder; `output` is the file it writes (nil for
    /// commands that write nothing); `families` are the shared options it takes.
    struct Command: CustomTestStringConvertible, Sendable {
        let name: String
        let families: Set<Family>
        /// The arguments for a run writing `output` in `folder` (`-o OUTPUT` where the command takes it).
        let arguments: @Sendable (_ folder: TemporaryDirectory, _ output: String) throws -> [String]
        /// The output's file name (its extension matters).
        let output: String?
        var testDescription: String { name }
    }

    static let wav = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
    static let video = Fixtures.video("h264-25fps-51aac.mov")

    static let commands: [Command] = [
        Command(name: "convert", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { _, output in ["convert", wav.path, "-o", output] }, output: "out.flac"),
        Command(name: "reverse", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { _, output in ["reverse", wav.path, "-o", output] }, output: "Reversed"),
        Command(name: "video", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { _, output in ["video", video.path, "-o", output, "--preset", "ultrafast"] }, output: "out.mp4"),
        Command(name: "trim", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { _, output in ["trim", wav.path, "-o", output, "--start", "0.1"] }, output: "cut.wav"),
        Command(name: "join", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { _, output in ["join", wav.path, wav.path, "-o", output] }, output: "both.wav"),
        Command(name: "compose", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { folder, output in
                    let plan = folder.file("plan.txt")
                    try "\(wav.path) 0 0.2\nsilence 0.1\n\(wav.path) 0 0.2 reverse\n".write(to: plan, atomically: true, encoding: .utf8)
                    return ["compose", plan.path, "-o", output]
                }, output: "plan-out.wav"),
        Command(name: "split", families: [.overwrite, .progress, .verbosity, .json],
                arguments: { folder, _ in ["split", wav.path, "-o", folder.file("pieces").path, "--at", "0.1"] }, output: nil),
        Command(name: "waveform", families: [.output, .overwrite, .progress, .verbosity, .json],
                arguments: { _, output in ["waveform", wav.path, "-o", output] }, output: "w.png"),
        Command(name: "play", families: [.overwrite, .verbosity, .json],
                arguments: { _, output in ["play", wav.path, "--to-file", output] }, output: "played.wav"),
        Command(name: "info", families: [.verbosity, .json], arguments: { _, _ in ["info", wav.path] }, output: nil),
        Command(name: "list", families: [.verbosity, .json],
                arguments: { folder, _ in
                    try FileManager.default.copyItem(at: wav, to: folder.file("a.wav"))
                    return ["list", folder.url.path]
                }, output: nil),
    ]

    /// Every command of the tool but `completion` (which prints a script) and `serve` (which
    /// runs until a signal: ServeTests start it) has a row, so a new command cannot go without
    /// the shared options unnoticed.
    @Test("the table covers every subcommand that does work")
    func tableCoversEveryCommand() async throws {
        let listed = await Set(try ManPageTests.subcommands())
        let rows = Set(Self.commands.map(\.name))
        #expect(listed.contains("convert") && listed.contains("play"), "\(listed)")
        for command in listed.subtracting(["completion", "serve"]) {
            #expect(rows.contains(command), "\(command) has no row")
        }
    }

    @Test("each command runs as it is, then with each shared option it takes", arguments: commands)
    func sharedOptions(_ command: Command) async throws {
        for family in Family.allCases where command.families.contains(family) {
            try await check(family, on: command)
        }
    }

    @Test("each command's help lists its shared options under one heading, and ends with examples", arguments: commands)
    func helpListsSharedOptions(_ command: Command) async throws {
        let help = try await CLI.run([command.name, "--help"])
        #expect(help.status == 0)
        let text = help.outputText
        #expect(text.contains("SHARED OPTIONS:"), "\(text)")
        let names: [Family: [String]] = [.output: ["-o, "], .overwrite: ["-y, --overwrite", "-n, --no-overwrite"],
                                         .progress: ["--progress"], .verbosity: ["--verbose", "-q, --quiet"], .json: ["--json"]]
        for family in command.families {
            for name in names[family] ?? [] { #expect(text.contains(name), "\(command.name) --help lacks \(name)") }
        }
        let lines = text.split(separator: "\n")
        let examples = try #require(lines.lastIndex { $0 == "EXAMPLES:" }, "\(command.name) --help has no examples")
        let after = lines[(examples + 1)...]
        #expect(!after.isEmpty && after.allSatisfy { $0.hasPrefix("  ") && $0.contains("reverse-audio") || $0.contains("printf") },
                "the examples must end the help: \(after)")
        // Each option's text states its default once (the parser adds "(default: …)" itself).
        for entry in text.components(separatedBy: "\n  -").dropFirst() {
            #expect(entry.components(separatedBy: "default:").count <= 2, "a default said twice: \(entry)")
        }
    }

    @Test("the help texts the issue cites: no default said twice, u8 listed, --to-file not only WAV")
    func citedHelpTexts() async throws {
        let reverse = try await CLI.run(["reverse", "--help"]).outputText.replacingOccurrences(of: "\n", with: " ")
        #expect(!reverse.contains("(default: the number of cores). (default:"), "\(reverse)")
        for command in ["convert", "trim", "join", "compose", "reverse"] {
            let help = try await CLI.run([command, "--help"]).outputText
            let sampleFormat = try #require(help.range(of: "\n  --sample-format"))
            #expect(help[sampleFormat.lowerBound...].prefix(300).contains("u8"), "\(command) --sample-format help omits u8")
        }
        let play = try await CLI.run(["play", "--help"]).outputText
        #expect(!play.contains("WAV file"), "\(play)")
        #expect(play.contains("--realtime"))
    }

    // MARK: One family on one command

    /// Runs `command` with `extra` options in a fresh folder; the output's path is returned too.
    private func run(_ command: Command, _ extra: [String] = [], in given: TemporaryDirectory? = nil) async throws -> (ProcessResult, String) {
        let folder = try given ?? TemporaryDirectory()
        let output = command.output.map { folder.file($0).path } ?? ""
        let result = try await CLI.run(try command.arguments(folder, output) + extra)
        return withExtendedLifetime(folder) { (result, output) }
    }

    private func check(_ family: Family, on command: Command) async throws {
        let context = "\(command.name) \(family)"
        switch family {
        case .output:
            let folder = try TemporaryDirectory()
            let (result, output) = try await run(command, in: folder)
            #expect(result.status == 0, "\(context): \(result.errorText)")
            #expect(FileManager.default.fileExists(atPath: output), "\(context): -o \(output) not written")
        case .overwrite:
            let folder = try TemporaryDirectory()
            let (first, _) = try await run(command, in: folder)
            #expect(first.status == 0, "\(context): \(first.errorText)")
            let (refused, _) = try await run(command, ["-n"], in: folder)
            if command.name == "reverse" {
                // A batch skips what it has done; -n only states the default.
                #expect(refused.status == 0, "\(context) -n: \(refused.errorText)")
            } else {
                #expect(refused.status == 1 && refused.errorText.contains("-y"), "\(context) -n: \(refused.status) \(refused.errorText)")
            }
            let (again, _) = try await run(command, ["-y"], in: folder)
            #expect(again.status == 0, "\(context) -y: \(again.errorText)")
            let (both, _) = try await run(command, ["-y", "-n"], in: folder)
            #expect(both.status == 64 && both.errorText.contains("-n"), "\(context) -y -n: \(both.errorText)")
        case .progress:
            let (result, _) = try await run(command, ["--progress", "json"])
            #expect(result.status == 0, "\(context): \(result.errorText)")
            let fractions = try result.errorLines.map { try jsonObject($0)["fraction"] as? Double }
            #expect(!fractions.isEmpty && fractions.last == 1, "\(context): \(result.errorText)")
            let (none, _) = try await run(command, ["--progress", "none"])
            #expect(none.status == 0 && none.errorText.isEmpty, "\(context) none: \(none.errorText)")
        case .verbosity:
            let (quiet, _) = try await run(command, ["--quiet"])
            #expect(quiet.status == 0, "\(context) --quiet: \(quiet.errorText)")
            #expect(quiet.outputText.isEmpty && quiet.errorText.isEmpty, "\(context) --quiet printed: \(quiet.outputText) \(quiet.errorText)")
            let (verbose, _) = try await run(command, ["--verbose"])
            #expect(verbose.status == 0, "\(context) --verbose: \(verbose.errorText)")
            let (both, _) = try await run(command, ["--verbose", "--quiet"])
            #expect(both.status == 64, "\(context) --verbose --quiet: \(both.errorText)")
        case .json:
            let (result, _) = try await run(command, ["--json"])
            #expect(result.status == 0, "\(context): \(result.errorText)")
            #expect(!result.outputLines.isEmpty, "\(context): no JSON")
            for line in result.outputLines {
                let object = try jsonObject(line)
                #expect(object["status"] as? String == "done" || object["frames"] != nil, "\(context): \(line)")
            }
            // --quiet silences the text, never the JSON asked for.
            let (quiet, _) = try await run(command, ["--json", "--quiet"])
            #expect(quiet.status == 0 && quiet.outputLines.count == result.outputLines.count, "\(context) --quiet: \(quiet.outputText)")
        }
    }
}
