import ArgumentParser
import Foundation
import ReverseAudio

struct InfoCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show container, codec, sample rate, channels, duration and exact frame count, and a video file's video streams.")

    static let examples = [
        "reverse-audio info song.mp3",
        "reverse-audio info --json *.mp3            # one JSON object per file, one per line",
        "reverse-audio info clip.mp4                # the audio, and every video stream",
    ]

    @Argument(help: "Audio (or video) files to describe.", completion: .file())
    var files: [String]

    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions
    @OptionGroup(title: SharedOptions.title) var result: JSONResultOption

    func run() async throws {
        var failed = false
        for file in files {
            do {
                let url = try StandardStreams.seekableInputURL(file)
                let (info, warnings) = try await SignalCancellation.run { try await Self.describe(url) }
                warnings.forEach(ErrorReporting.printWarning)
                try result.print(text(info), jsonLine: try JSONResultOption.line(encoding: info))
            } catch {
                ErrorReporting.printError(error)
                if SignalCancellation.receivedSignal != nil || ErrorReporting.isUsageError(error) { throw ErrorReporting.exitCode(for: error) }
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    /// What `AudioInfo.read` gives, and what resolving the length found wrong with the file
    /// (the warnings `convert` gives of it: damage skipped, a file cut short), on a thread of
    /// its own, stopped by a signal.
    static func describe(_ url: URL) async throws -> (AudioInfo, [ReverseAudioWarning]) {
        try await BlockingWork.run { flag in
            let source = try AudioFileSource(url: url, cancellation: flag, plan: .lengthFirst)
            let info = source.info
            return (info, source.warnings)
        }
    }

    private func text(_ info: AudioInfo) -> String {
        var lines = [info.path]
        lines.append("  container    \(info.container) (\(info.containerName))")
        lines.append("  codec        \(info.codec) (\(info.codecName))")
        lines.append("  sample rate  \(info.sampleRate) Hz")
        lines.append("  channels     \(info.channelCount) (\(info.layoutName ?? "unspecified layout"))")
        if let format = info.sampleFormat {
            lines.append("  sample fmt   \(format)\(info.bitsPerSample.map { ", \($0) bits" } ?? "")")
        }
        let frames = info.frames.map { "\($0) frames" } ?? "frame count unknown"
        let estimate = info.durationIsEstimate ? ", the container's estimate"
            : (info.framesSource == .container ? ", as the header states" : "")
        lines.append("  duration     \(String.seconds(info.duration)) (\(frames)\(estimate))")
        if let bitRate = info.streamBitRate { lines.append("  bit rate     \(bitRate / 1000) kb/s (the audio stream)") }
        if let bitRate = info.bitRate { lines.append("  file rate    \(bitRate / 1000) kb/s (every stream)") }
        for video in info.videoStreams {
            let rate = video.frameRate.map { String(format: ", %g fps", $0) } ?? ""
            let length = video.duration.map { ", " + String.seconds($0) } ?? ""
            let kind = video.isAttachedPicture ? "picture" : "video"
            lines.append("  \(kind.padding(toLength: 12, withPad: " ", startingAt: 0)) #\(video.index) \(video.codec) \(video.width)×\(video.height)\(rate)\(length)")
        }
        for (key, value) in info.tags.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(key.padding(toLength: 12, withPad: " ", startingAt: 0)) \(value)")
        }
        return lines.joined(separator: "\n")
    }
}
