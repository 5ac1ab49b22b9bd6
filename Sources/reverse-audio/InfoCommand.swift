import ArgumentParser
import Foundation
import ReverseAudio

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show container, codec, sample rate, channels, duration and exact frame count.")

    @Flag(help: "Print one JSON object per file, one per line.")
    var json = false

    @Argument(help: "Audio files to describe.", completion: .file())
    var files: [String]

    func run() async throws {
        FFmpegDiagnostics.show(.quiet)
        var failed = false
        for file in files {
            do {
                let info = try await AudioInfo.load(from: try StandardStreams.seekableInputURL(file))
                Console.out(json ? try jsonLine(info) : text(info))
            } catch {
                ErrorReporting.printError(error)
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    private func jsonLine(_ info: AudioInfo) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(info), as: UTF8.self)
    }

    private func text(_ info: AudioInfo) -> String {
        var lines = [info.path]
        lines.append("  container    \(info.container) (\(info.containerName))")
        lines.append("  codec        \(info.codec) (\(info.codecName))")
        lines.append("  sample rate  \(info.sampleRate) Hz")
        lines.append("  channels     \(info.channelCount) (\(info.channelLayout ?? "unspecified layout"))")
        if let format = info.sampleFormat {
            lines.append("  sample fmt   \(format)\(info.bitsPerSample.map { ", \($0) bits" } ?? "")")
        }
        let frames = info.frames.map { "\($0) frames" } ?? "frame count unknown"
        let estimate = info.durationIsEstimate ? ", the container's estimate"
            : (info.framesSource == .container ? ", as the header states" : "")
        lines.append("  duration     \(String.seconds(info.duration)) (\(frames)\(estimate))")
        if let bitRate = info.bitRate { lines.append("  bit rate     \(bitRate / 1000) kb/s") }
        for (key, value) in info.tags.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(key.padding(toLength: 12, withPad: " ", startingAt: 0)) \(value)")
        }
        return lines.joined(separator: "\n")
    }
}
