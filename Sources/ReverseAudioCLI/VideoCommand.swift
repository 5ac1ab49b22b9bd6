import ArgumentParser
import Foundation
import ReverseAudio

/// `reverse-audio video IN OUT`: a reversed (or boomerang) video, H.264 out, in bounded memory.
struct VideoCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Reverse a video, or make a boomerang of it, in bounded memory: H.264 out, the audio reversed without seams.",
        discussion: """
            Writes .mp4, .mov or .mkv (by the output's extension) with libx264. Each group of \
            pictures is decoded on its own, from the last to the first; a group that does not fit \
            in --memory-limit waits in a temporary file beside the output, removed in every case. \
            The audio is reversed whole, as `convert --reverse` reverses it. x264 is GPL software: \
            see the README's licence note.
            """)

    static let examples = [
        "reverse-audio video clip.mp4 clip-reversed.mp4",
        "reverse-audio video clip.mov -o loop.mov --boomerang",
        "reverse-audio video talk.mp4 out.mp4 --audio keep --crf 23 --preset veryfast --memory-limit 128",
    ]

    @Argument(help: "The video to read (a file: it is read from its end).", completion: .file())
    var input: String

    @Argument(help: "The file to write (or -o FILE): .mp4, .mov or .mkv.", completion: .file())
    var output: String?

    @Flag(help: "Forward, then reversed (the turn frame once); the audio forwards, then reversed.")
    var boomerang = false

    @Option(help: "The audio: reversed, kept (copied forwards, unchanged) or left out.")
    var audio: VideoOptions.AudioHandling = .reverse

    @Option(help: "x264 quality, 0 (best) to 51; default: 18.")
    var crf: Double?

    @Flag(help: "x264 at quantiser 0: 8-bit 4:2:0 pictures come out exactly as decoded (big files; not every player plays them).")
    var lossless = false

    @Option(help: ArgumentHelp("x264 preset: \(VideoOptions.presets.joined(separator: ", ")) (slower: smaller files).", valueName: "preset"))
    var preset = "medium"

    @Option(help: "Audio codec; default: aac. flac goes in .mkv, pcm in .mov and .mkv.")
    var audioCodec: VideoOptions.AudioCodec?

    @Option(name: .customLong("audio-bitrate"), help: "AAC bit rate (192k); default: the input's AAC rate, else 96k a channel.")
    var audioBitrate: BitRate?

    @Option(help: "MiB of decoded pictures held in memory (the group being encoded and the one being decoded); the rest waits in a temporary file.")
    var memoryLimit = VideoOptions.defaultMemoryLimit >> 20

    @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
    var verbosity: VerbosityOptions { shared.verbosity }

    func validate() throws {
        if crf != nil && lossless { throw ValidationError("--crf and --lossless exclude each other") }
        if let crf, !(0...51).contains(crf) { throw ValidationError("--crf must be 0 to 51, not \(crf)") }
        if memoryLimit < 0 { throw ValidationError("--memory-limit cannot be negative") }
        if memoryLimit > 1 << 20 { throw ValidationError("--memory-limit is in MiB; \(memoryLimit) MiB is more than 1 TiB") }
        _ = try shared.output(positional: output, command: "video")
    }

    func run() async throws {
        let output = try shared.output(positional: output, command: "video")
        let inputURL = try ErrorReporting.exitingOnFailure { try StandardStreams.namedInput(input) }
        let outputURL = URL(fileURLWithPath: output)
        let options = VideoOptions(boomerang: boomerang, audio: audio, quality: lossless ? .lossless : .crf(crf ?? 18),
                                   preset: preset, audioCodec: audioCodec, audioBitRate: audioBitrate?.bitsPerSecond,
                                   memoryLimit: memoryLimit << 20, overwrite: shared.overwrite)
        let display = ProgressDisplay(style: shared.progress.style)
        let handler = display.handler(file: input, index: 1, count: 1)
        do {
            let reversed = try await SignalCancellation.run {
                try await VideoReverser.reverse(inputURL, to: outputURL, options: options, progress: handler)
            }
            display.clear()
            reversed.warnings.forEach(ErrorReporting.printWarning)
            shared.result.print(summary(reversed, output: output), json: json(reversed, output: output))
            if shared.verbosity.verbose { details(reversed).forEach(Console.error) }
        } catch {
            display.clear()
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }

    private func summary(_ result: VideoResult, output: String) -> String {
        let quality = lossless ? "lossless" : "CRF \(String(format: "%g", crf ?? 18))"
        return "\(result.boomerang ? "boomerang" : "reversed") \(input) -> \(output): \(result.outputFrames) frames, "
            + "\(String.seconds(result.duration)), \(result.outputWidth)×\(result.outputHeight) H.264 (\(quality), \(preset)); "
            + "audio \(result.audio)"
    }

    /// The `--json` object.
    private func json(_ result: VideoResult, output: String) -> [String: Any] {
        ["input": input, "output": output, "boomerang": result.boomerang, "frames": result.outputFrames,
         "durationSeconds": result.duration, "width": result.outputWidth, "height": result.outputHeight,
         "quality": lossless ? "lossless" : "crf \(String(format: "%g", crf ?? 18))", "preset": preset,
         "audio": "\(result.audio)", "status": "done", "warnings": result.warnings.map(\.description)]
    }

    private func details(_ result: VideoResult) -> [String] {
        let mib = { (bytes: Int64) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        return [
            "  source: \(result.codec) \(result.width)×\(result.height), \(result.inputFrames) frames decoded",
            "  groups of pictures: \(result.groups), the largest \(result.largestGroup) frame\(result.largestGroup == 1 ? "" : "s"); decoded in \(result.decodeRuns) run\(result.decodeRuns == 1 ? "" : "s")",
            "  memory: at most \(mib(Int64(result.peakPictureBytes))) of pictures held (limit \(memoryLimit) MiB)",
            "  temporary file: \(result.spilledFrames) pictures spilled, at most \(mib(result.temporaryBytes)) (removed)",
            "  conversions: \(result.conversions.isEmpty ? "none (the pictures went in as decoded)" : result.conversions.joined(separator: "; "))",
        ]
    }
}

extension VideoOptions.AudioHandling: ExpressibleByArgument {}
extension VideoOptions.AudioCodec: ExpressibleByArgument {}
