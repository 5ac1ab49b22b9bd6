import ArgumentParser
import Foundation
import ReverseAudio

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode a file and write it as 16-bit WAV, optionally reversed.")

    @Argument(help: "The audio file to read.")
    var input: String

    @Argument(help: "The WAV file to write.")
    var output: String

    @Option(help: "Channels to keep: all, first, mix (all mixed to one, as ffmpeg -ac 1) or a channel number from 0.")
    var channels: ChannelSelection = .all

    @Flag(help: "Write the audio reversed.")
    var reverse = false

    @Option(help: "Frames per written block (default: the first decoded buffer's frame count).")
    var blockFrames: Int?

    @Flag(name: .customShort("y"), help: "Overwrite the output if it exists.")
    var overwrite = false

    @Option(help: "Progress on standard error: auto, bar, json or none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Explain what was done, and show FFmpeg's own warnings.")
    var verbose = false

    func validate() throws {
        if let blockFrames, blockFrames < 1 { throw ValidationError("--block-frames must be at least 1") }
    }

    func run() async throws {
        FFmpegDiagnostics.show(verbose ? .warnings : .quiet)
        let inputURL = URL(fileURLWithPath: input)
        let outputURL = URL(fileURLWithPath: output)
        let options = ConversionOptions(channels: channels, reverse: reverse, blockFrames: blockFrames, overwrite: overwrite)
        let display = ProgressDisplay(style: progress)
        let handler = display.handler(file: input, index: 1, count: 1)
        do {
            let result = try await SignalCancellation.run {
                try await AudioConverter.convert(inputURL, to: outputURL, options: options, progress: handler)
            }
            display.clear()
            for warning in result.warnings { ErrorReporting.printWarning(warning, file: input) }
            Console.out(ConversionSummary.line(result, output: output))
            if verbose { ConversionSummary.details(result).forEach(Console.error) }
        } catch {
            display.clear()
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
