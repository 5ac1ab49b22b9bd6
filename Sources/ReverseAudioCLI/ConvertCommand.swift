import ArgumentParser
import Foundation
import ReverseAudio

struct ConvertCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode a file and write it in the format its name asks for (\(OutputFormat.names.joined(separator: " "))), optionally reversed.")

    static let examples = [
        "reverse-audio convert song.m4a song-reversed.wav --reverse",
        "reverse-audio convert song.flac -o clip.mp3 --bitrate 256k --start 1:02.5 --duration 10",
        "reverse-audio convert take.wav take.flac --sample-format native -y",
        "cat song.mp3 | reverse-audio convert - - --reverse | ffplay -nodisp -",
        "reverse-audio convert song.flac song.wav --json --quiet   # one JSON object, nothing else",
    ]

    @Argument(help: "The audio file to read; - for standard input.", completion: .file())
    var input: String

    @Argument(help: "The file to write (or -o FILE); its extension picks the format (or give --format); - for standard output (WAV unless --format).",
              completion: .file())
    var output: String?

    @Flag(help: "Write the audio reversed.")
    var reverse = false

    @OptionGroup var flags: ConversionFlags

    @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
    var verbosity: VerbosityOptions { shared.verbosity }

    func validate() throws {
        let output = try shared.output(positional: output, command: "convert")
        try ConversionFlags.validateFormat(flags.format, output: output, codec: flags.codec, bitRate: flags.bitrate)
    }

    func run() async throws {
        let output = try shared.output(positional: output, command: "convert")
        let inputURL = try ErrorReporting.exitingOnFailure { try StandardStreams.inputURL(input) }
        let outputURL = StandardStreams.outputURL(output)
        var options = try ErrorReporting.exitingOnFailure {
            try flags.options(reverse: reverse, output: outputURL, overwrite: shared.overwrite)
        }
        let display = ProgressDisplay(style: shared.progress.style)
        // The audio's length for the speed figure, from the conversion's own open of the input.
        options.opened = { seconds in display.setSeconds(seconds, index: 1) }
        let handler = display.handler(file: input, index: 1, count: 1)
        let conversion = options
        do {
            let converted = try await SignalCancellation.run {
                try await AudioConverter.convert(inputURL, to: outputURL, options: conversion, progress: handler)
            }
            display.clear()
            converted.warnings.forEach(ErrorReporting.printWarning)
            if let narrowing = flags.narrowing(converted), !Console.isQuiet {
                Console.error("reverse-audio: warning: \(input): \(narrowing)")
            }
            shared.result.print(ConversionSummary.line(converted, output: output), json: ConversionSummary.json(converted, input: input, output: output),
                         output: outputURL.path)
            if shared.verbosity.verbose { ConversionSummary.details(converted).forEach(Console.error) }
        } catch {
            display.clear()
            ErrorReporting.printError(error)
            // With --json, a failure is a line too, in the batch's schema (the message also on standard error).
            if shared.result.json {
                let line = JSONResultOption.line(ConversionSummary.failedJSON(error, input: input, output: output))
                if Console.isStandardOutput(outputURL.path) { Console.error(line) } else { Console.out(line) }
            }
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
