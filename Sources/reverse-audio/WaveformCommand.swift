import ArgumentParser
import Foundation
import ReverseAudio

struct WaveformCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform",
        abstract: "Draw a file's waveform (min/max per pixel column, per channel, with a time axis) as a PNG.",
        discussion: "With --compare a second file is drawn under the first: the original above its reversal.")

    @Argument(help: "The audio file to draw.", completion: .file())
    var input: String

    @Argument(help: "The PNG file to write.", completion: .file(extensions: ["png"]))
    var output: String

    @Option(help: "Width in pixels.")
    var width = 1200

    @Option(help: "Height in pixels (the whole picture).")
    var height = 300

    @OptionGroup var range: RangeFlags

    @Option(help: "A second file drawn under the first.", completion: .file())
    var compare: String?

    @Flag(name: .customShort("y"), help: "Overwrite an existing picture.")
    var overwrite = false

    func validate() throws {
        if !(16...16384).contains(width) { throw ValidationError("--width must be 16 to 16384 pixels, not \(width)") }
        if !(16...16384).contains(height) { throw ValidationError("--height must be 16 to 16384 pixels, not \(height)") }
    }

    func run() async throws {
        FFmpegDiagnostics.show(.quiet)
        let outputURL = StandardStreams.outputURL(output)
        do {
            let inputURL = try StandardStreams.seekableInputURL(input)
            let compareURL = try compare.map { try StandardStreams.seekableInputURL($0) }
            let drawn = try range.range()
            let (width, height, overwrite) = (width, height, overwrite)
            let drawing = try await SignalCancellation.run {
                try await BlockingWork.run { flag in
                    try Waveform.draw(inputURL, to: outputURL, width: width, height: height, range: drawn,
                                      compare: compareURL, overwrite: overwrite, cancellation: flag)
                }
            }
            let frames = drawing.frames.map { "\($0) frames" }.joined(separator: " and ")
            Console.out("drew \(input)\(compare.map { " and \($0)" } ?? "") -> \(output) (\(width)x\(height), \(frames))")
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
