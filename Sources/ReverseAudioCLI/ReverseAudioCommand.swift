import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioBatch

/// The tool's root command, run by both executables, `reverse-audio`
/// and `reverse-audio-serve` (the same commands, with the web server linked in); ``runAsTool()``
/// parses and runs with the tool's one error style.
package struct ReverseAudioCommand: AsyncParsableCommand, ExampleCommand {
    package static let configuration = CommandConfiguration(
        commandName: "reverse-audio",
        abstract: "Reverse, convert and inspect audio files, exactly as FFmpeg decodes them.",
        discussion: """
            Reads \(SupportedAudioFiles.extensions.joined(separator: " ")) (and anything else FFmpeg decodes) and \
            writes \(OutputFormat.names.joined(separator: " ")). Reversed output equals \
            `ffmpeg -af areverse` sample for sample, in memory that does not grow with the \
            file's length. Every command takes the shared options where they mean something: \
            -o (the file written; reverse: the folder), -y/-n (overwrite, never overwrite), \
            --progress, --verbose/--quiet, --json. Exit status: 0 done, 1 a file failed, 64 a usage \
            error (an unknown option, a value out of range or not among its choices, an output \
            name no format answers to), 74 a batch stopped because its output side failed, 128+N \
            stopped by signal N (130 Ctrl-C).
            """,
        version: ReverseAudioVersion.string,
        subcommands: [ReverseCommand.self, ConvertCommand.self, VideoCommand.self, TrimCommand.self, SplitCommand.self, JoinCommand.self, ComposeCommand.self,
                      PlayCommand.self, InfoCommand.self, ListCommand.self, WaveformCommand.self, ServeCommand.self,
                      CompletionCommand.self]
    )

    package init() {}

    static let examples = [
        "reverse-audio convert song.mp3 song-reversed.wav --reverse",
        "reverse-audio reverse \"Audio Files\" -o Reversed --verify",
        "reverse-audio info --json song.mp3",
        "reverse-audio help convert            # a command's options and examples",
    ]

    /// Parses and runs with one error style: `reverse-audio: error: …` on one line (then the
    /// usage for a usage error), a suggestion for a mistyped subcommand, and file names that
    /// look like flags refused before the parser reads them as flags (see ``FlagLookalikes``).
    package static func runAsTool() async {
        // Before anything else, so that a signal during parsing or a blocking read is handled
        // by the one rule (see SignalCancellation).
        SignalCancellation.install()
        let given = rawArguments()
        let arguments = FlagLookalikes.joiningDashValues(given, takesValue: longOptionTakesValue(in: given))
        if let name = FlagLookalikes.firstFileName(in: arguments) {
            Console.error("reverse-audio: error: \(FlagLookalikes.message(for: name))")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        let names = commandNames
        // `help NAME` names a command too: a mistyped one gets the same suggestion.
        let named = arguments.first == "help" ? arguments.dropFirst().first : arguments.first
        if let first = named, !first.hasPrefix("-"), !names.contains(first), first != "help" {
            var message = "'\(first)' is not a reverse-audio command"
            if let nearest = Suggestion.nearest(to: first, in: names) { message += "; did you mean '\(nearest)'?" }
            Console.error("reverse-audio: error: \(message) (commands: \(names.joined(separator: ", ")))")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            try await Self.run(try parseAsRoot(arguments))
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version, the completion scripts: their text on standard output; the
                // help ends with the command's examples, and the manual's source gets them too.
                Console.out(helpText(fullMessage(for: error), arguments: arguments))
            } else if !(error is ExitCode) {
                // The parser's own errors, in the tool's one style; the usage follows.
                Console.error("reverse-audio: error: \(oneLine(message(for: error)))")
                let usage = fullMessage(for: error).split(separator: "\n").drop { !$0.hasPrefix("Usage:") }
                if !usage.isEmpty { Console.error(usage.joined(separator: "\n")) }
            }
            Foundation.exit(code.rawValue)
        }
    }

    /// The arguments as the system passed them: bytes that are not UTF-8 (a file name in
    /// Latin-1) would come out of `CommandLine.arguments` mangled, naming nothing; such a name
    /// is replaced by an alias to the file it names (see `ByteNames`), shown escaped.
    static func rawArguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return "" }
            let bytes = Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
            return ByteNames.argument(bytes)
        }
    }

    /// The parser's message on one line: the choices it lists one a line ("  - u8") follow
    /// its first line, separated by commas.
    static func oneLine(_ message: String) -> String {
        let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first, lines.count > 1 else { return message }
        return first + " " + lines.dropFirst().map { $0.hasPrefix("- ") ? String($0.dropFirst(2)) : $0 }.joined(separator: ", ")
    }

    /// `message` (help, version, a completion script, the help dump) with the examples of the
    /// command that `arguments` names added where the message is its help or the help dump.
    static func helpText(_ message: String, arguments: [String]) -> String {
        if arguments.contains("--experimental-dump-help") {
            var commands: [String: Any.Type] = ["reverse-audio": Self.self]
            for command in configuration.subcommands { commands[name(of: command)] = command }
            return HelpExamples.addingExamples(toDump: message, commands: commands)
        }
        guard message.hasPrefix("OVERVIEW:") || message.hasPrefix("USAGE:") else { return message }
        let named = arguments.first == "help" ? arguments.dropFirst().first : arguments.first
        let command = configuration.subcommands.first { name(of: $0) == named } ?? Self.self
        var text = message
        while text.hasSuffix("\n") { text.removeLast() }
        return HelpExamples.section(for: command).map { text + "\n\n" + $0 } ?? message
    }

    /// A test for `--name` taking a value in the command `arguments` names, from the parser's own
    /// description of that command alone: read only when a word starting with one `-` follows a
    /// long option (`--jobs -1`). Describing the whole tool cost ~15 ms (a fifth of a run's start)
    /// and ten times that in a debug build; one command is a fraction of it.
    private static func longOptionTakesValue(in arguments: [String]) -> (String) -> Bool {
        let asked = zip(arguments, arguments.dropFirst()).contains { option, value in
            option.hasPrefix("--") && !option.contains("=") && FlagLookalikes.isDashWord(value)
        }
        guard asked else { return { _ in false } }
        let described = configuration.subcommands.first { name(of: $0) == arguments.first } ?? Self.self
        guard let dump = (try? JSONSerialization.jsonObject(with: Data(described._dumpHelp().utf8))) as? [String: Any],
              let command = dump["command"] as? [String: Any] else { return { _ in false } }
        var names: Set<String> = []
        for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
            for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                if let text = name["name"] as? String { names.insert("--" + text) }
            }
        }
        return { names.contains($0) }
    }

    /// The subcommands' names.
    static var commandNames: [String] {
        var names: [String] = []
        for command in configuration.subcommands { names.append(name(of: command)) }
        return names
    }

    private static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? ""
    }

    /// Runs a parsed command (every command of this tool is asynchronous).
    private static func run(_ parsed: any ParsableCommand) async throws {
        (parsed as? any ReportingCommand)?.verbosity.apply()
        guard var command = parsed as? any AsyncParsableCommand else {
            var plain = parsed
            try plain.run()
            return
        }
        try await command.run()
    }
}
