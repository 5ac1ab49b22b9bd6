import ArgumentParser
import ReverseAudio

/// The options `convert` and `reverse` share.
struct ConversionFlags: ParsableArguments {
    @Option(help: "Channels to keep: all, first, mix (all mixed to one, as ffmpeg -ac 1) or a channel number from 0.")
    var channels: ChannelSelection = .all

    @Option(help: "Frames per written block (default: the first decoded buffer's frame count).")
    var blockFrames: Int?

    @Flag(name: .customShort("y"), help: "Overwrite existing outputs (never the input).")
    var overwrite = false

    @Option(help: "Progress on standard error: auto (a bar on a terminal), bar, json or none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Explain what was done, and show FFmpeg's own warnings.")
    var verbose = false

    func validate() throws {
        if let blockFrames, blockFrames < 1 { throw ValidationError("--block-frames must be at least 1") }
    }

    func options(reverse: Bool) -> ConversionOptions {
        ConversionOptions(channels: channels, reverse: reverse, blockFrames: blockFrames, overwrite: overwrite)
    }

    func showFFmpegDiagnostics() {
        FFmpegDiagnostics.show(verbose ? .warnings : .quiet)
    }
}
