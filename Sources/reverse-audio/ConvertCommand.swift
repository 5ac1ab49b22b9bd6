import ArgumentParser
import Foundation
import ReverseAudio

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode a file and write it in the format its name asks for (wav aiff caf flac m4a mp3 aac), optionally reversed.")

    @Argument(help: "The audio file to read; - for standard input.", completion: .file())
    var input: String

    @Argument(help: "The file to write; its extension picks the format (or give --format); - for standard output (WAV unless --format).",
              completion: .file())
    var output: String

    @Flag(help: "Write the audio reversed.")
    var reverse = false

    @OptionGroup var flags: ConversionFlags

    func run() async throws {
        flags.showFFmpegDiagnostics()
        let inputURL = StandardStreams.inputURL(input)
        let outputURL = StandardStreams.outputURL(output)
        let options: ConversionOptions
        do {
            options = try flags.options(reverse: reverse, output: outputURL)
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
        let display = ProgressDisplay(style: flags.progress)
        // The audio's length for the speed figure; a pipe is not probed (it can be read only once).
        let isRegularFile = (try? inputURL.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        let seconds = isRegularFile ? (try? AudioInfo.probe(from: inputURL))?.duration : nil
        let handler = display.handler(file: input, index: 1, count: 1, seconds: seconds)
        do {
            let result = try await SignalCancellation.run {
                try await AudioConverter.convert(inputURL, to: outputURL, options: options, progress: handler)
            }
            display.clear()
            result.warnings.forEach(ErrorReporting.printWarning)
            let summary = ConversionSummary.line(result, output: output)
            if Console.isStandardOutput(outputURL.path) { Console.error(summary) } else { Console.out(summary) }
            if flags.verbose { ConversionSummary.details(result).forEach(Console.error) }
        } catch {
            display.clear()
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
