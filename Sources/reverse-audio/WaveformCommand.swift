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

    func run() async throws {
        FFmpegDiagnostics.show(.quiet)
        let inputURL = URL(fileURLWithPath: input)
        let outputURL = URL(fileURLWithPath: output)
        let compareURL = compare.map { URL(fileURLWithPath: $0) }
        do {
            let drawn = try range.range()
            let (width, height, overwrite) = (width, height, overwrite)
            try await Task.detached {
                try Waveform.draw(inputURL, to: outputURL, width: width, height: height, range: drawn,
                                  compare: compareURL, overwrite: overwrite)
            }.value
            Console.out("drew \(input)\(compare.map { " and \($0)" } ?? "") -> \(output) (\(width)×\(height))")
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
