import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioBatch

struct ListCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the audio files in a folder (\(SupportedAudioFiles.extensions.joined(separator: " "))) with duration, format and channels.")

    static let examples = [
        "reverse-audio list \"Audio Files\"",
        "reverse-audio list Music --json            # info's JSON object for each file",
    ]

    @Argument(help: "The folder to list.", completion: .directory)
    var folder: String = "."

    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions
    @OptionGroup(title: SharedOptions.title) var result: JSONResultOption

    func run() async throws {
        let files: [URL]
        do {
            // FIFOs, devices and sockets are passed over: reading one could wait forever.
            files = try SupportedAudioFiles.files(in: URL(fileURLWithPath: folder, isDirectory: true))
        } catch {
            ErrorReporting.printError(error)
            throw ExitCode.failure
        }
        var table = TextTable("file", "format", "duration", "rate", "channels")
        var failed = false
        var estimated = false
        for file in files {
            do {
                let info = try await SignalCancellation.run { try await InfoCommand.describe(file).0 }
                estimated = estimated || info.durationIsEstimate
                if result.json { Console.out(try JSONResultOption.line(encoding: info)) }
                table.add(file.lastPathComponent, "\(info.container.split(separator: ",").first ?? "") / \(info.codec)",
                          (info.durationIsEstimate ? "≈ " : "") + String.seconds(info.duration), "\(info.sampleRate)",
                          "\(info.channelCount) (\(info.layoutName ?? "unspecified"))")
            } catch {
                if SignalCancellation.receivedSignal != nil {
                    ErrorReporting.printError(error)
                    throw ErrorReporting.exitCode(for: error)
                }
                failed = true
                ErrorReporting.printError(error)
                table.add(file.lastPathComponent, "unreadable (see the error above)")
            }
        }
        if !result.json && !Console.isQuiet {
            Console.out(files.isEmpty ? "no audio files (\(SupportedAudioFiles.extensions.joined(separator: " "))) in \(folder)" : table.render())
            if estimated { Console.out("≈ the container's estimate: the frames could not be counted without decoding") }
        }
        if failed { throw ExitCode.failure }
    }
}
