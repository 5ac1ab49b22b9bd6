import ArgumentParser
import Foundation
import ReverseAudio

@main
struct ReverseAudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse-audio",
        abstract: "Reverse, convert and inspect audio files, exactly as FFmpeg decodes them.",
        discussion: """
            Reads aac m4a aiff aif wav mp3 caf m4r flac (and anything else FFmpeg decodes) and \
            writes WAV, AIFF, CAF, FLAC, M4A, MP3 or AAC. Reversed output equals \
            `ffmpeg -af areverse` sample for sample, in memory that does not grow with the \
            file's length. Exit status: 0 done, 1 a file failed, 64 a usage error, 128+N \
            stopped by signal N (130 Ctrl-C).
            """,
        version: ReverseAudioVersion.string,
        subcommands: [ReverseCommand.self, ConvertCommand.self, VideoCommand.self, TrimCommand.self, JoinCommand.self, ComposeCommand.self,
                      PlayCommand.self, InfoCommand.self, ListCommand.self, WaveformCommand.self,
                      CompletionCommand.self]
    )

    /// Parses and runs with one error style: `reverse-audio: error: …` on one line (then the
    /// usage for a usage error), a suggestion for a mistyped subcommand, and file names that
    /// look like flags refused before the parser reads them as flags (see ``FlagLookalikes``).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
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
                // --help, --version, the completion scripts: their text on standard output.
                Console.out(fullMessage(for: error))
            } else if !(error is ExitCode) {
                // The parser's own errors, in the tool's one style; the usage follows.
                Console.error("reverse-audio: error: \(message(for: error))")
                let usage = fullMessage(for: error).split(separator: "\n").drop { !$0.hasPrefix("Usage:") }
                if !usage.isEmpty { Console.error(usage.joined(separator: "\n")) }
            }
            Foundation.exit(code.rawValue)
        }
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
        guard var command = parsed as? any AsyncParsableCommand else {
            var plain = parsed
            try plain.run()
            return
        }
        try await command.run()
    }
}
