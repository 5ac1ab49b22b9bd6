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
            writes 16-bit WAV. Reversed output equals `ffmpeg -af areverse` sample for sample, \
            in memory that does not grow with the file's length.
            """,
        version: ReverseAudioVersion.string,
        subcommands: [ReverseCommand.self, ConvertCommand.self, InfoCommand.self, ListCommand.self]
    )

    /// Refuses file names that look like flags before the parser sees them (see ``FlagLookalikes``).
    static func main() async {
        if let name = FlagLookalikes.firstFileName(in: Array(CommandLine.arguments.dropFirst())) {
            Console.error("reverse-audio: error: \(FlagLookalikes.message(for: name))")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(nil)
    }
}
