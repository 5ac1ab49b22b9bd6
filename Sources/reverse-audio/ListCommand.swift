import ArgumentParser
import Foundation
import ReverseAudio

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the audio files in a folder (aac m4a aiff aif wav mp3 caf m4r flac) with duration, format and channels.")

    @Argument(help: "The folder to list.", completion: .directory)
    var folder: String = "."

    func run() async throws {
        FFmpegDiagnostics.show(.quiet)
        let files: [URL]
        do {
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
                let info = try await AudioInfo.load(from: file)
                estimated = estimated || info.durationIsEstimate
                table.add(file.lastPathComponent, "\(info.container.split(separator: ",").first ?? "") / \(info.codec)",
                          (info.durationIsEstimate ? "≈ " : "") + String.seconds(info.duration), "\(info.sampleRate)",
                          "\(info.channelCount) (\(info.channelLayout ?? "unspecified"))")
            } catch {
                failed = true
                ErrorReporting.printError(error)
                table.add(file.lastPathComponent, "unreadable (see the error above)")
            }
        }
        Console.out(files.isEmpty ? "no audio files (\(SupportedAudioFiles.extensions.joined(separator: " "))) in \(folder)" : table.render())
        if estimated { Console.out("≈ the container's estimate: the frames could not be counted without decoding") }
        if failed { throw ExitCode.failure }
    }
}
