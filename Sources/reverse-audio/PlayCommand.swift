import ArgumentParser
import Foundation
import ReverseAudio

struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a file forwards or backwards, streamed from disk, exact to the sample.",
        discussion: """
            --to-file OUT.wav renders what a device would receive, as fast as possible. \
            --events "AT:ACTION;…" scripts the playback on the output timeline: ACTION is \
            reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play or stop.
            """)

    @Argument(help: "The file to play.", completion: .file())
    var input: String

    @Flag(help: "Start backwards (from the end unless --from).")
    var reverse = false

    @Option(help: "Start here.")
    var from: TimePosition?

    @Flag(help: "Loop the whole file.")
    var loop = false

    @Option(help: "Loop from here…")
    var loopStart: TimePosition?

    @Option(help: "…to here (exclusive).")
    var loopEnd: TimePosition?

    @Option(help: "Write what the device would receive to this WAV file instead of playing it.", completion: .file())
    var toFile: String?

    @Option(help: "Scripted commands: AT:ACTION;AT:ACTION…")
    var events: String?

    @Option(help: "Stop after this much output.")
    var duration: TimePosition?

    @Flag(name: .customShort("y"), help: "Overwrite an existing --to-file output.")
    var overwrite = false

    func validate() throws {
        if (loopStart == nil) != (loopEnd == nil) { throw ValidationError("--loop-start and --loop-end go together") }
        if loop && loopStart != nil { throw ValidationError("--loop is the whole file; give it or --loop-start/--loop-end") }
    }

    func run() async throws {
        FFmpegDiagnostics.show(.quiet)
        guard let toFile else {
            ErrorReporting.printError(ReverseAudioError.invalidOption(
                "playing to a sound device is not built yet; render with --to-file OUT.wav"))
            throw ExitCode.failure
        }
        do {
            let result = try await SignalCancellation.run { [self] in
                try await Task.detached { try render(to: toFile) }.value
            }
            Console.out(result)
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }

    private func render(to path: String) throws -> String {
        let url = try StandardStreams.seekableInputURL(input)
        let probe = try AudioInfo.read(from: url)
        let rate = probe.sampleRate
        let length = probe.frames ?? 0
        let frame = { (time: TimePosition, name: String) throws -> Int64 in
            let value = time.frame(atRate: rate)
            guard value <= length else {
                throw ReverseAudioError.invalidOption("\(name) \(time) is past the end of \(input) (\(length) frames)")
            }
            return value
        }
        var region: Range<Int64>?
        if loop { region = 0..<length }
        if let loopStart, let loopEnd {
            let (lower, upper) = (try frame(loopStart, "--loop-start"), try frame(loopEnd, "--loop-end"))
            guard lower < upper else { throw ReverseAudioError.invalidOption("--loop-start must come before --loop-end") }
            region = lower..<upper
        }
        let renderer = try PlaybackRenderer(url: url, direction: reverse ? .reverse : .forward,
                                            from: try from.map { try frame($0, "--from") }, loop: region)
        for (at, command) in try PlaybackScript.parse(events ?? "", sampleRate: rate) {
            renderer.schedule(command, atOutputFrame: at)
        }
        try renderer.render(toFile: URL(fileURLWithPath: path), maximumFrames: duration.map { $0.frame(atRate: rate) },
                            overwrite: overwrite)
        let seconds = String.seconds(Double(renderer.framesRendered) / Double(rate))
        return "rendered \(input) -> \(path): \(seconds), \(renderer.framesRendered) frames, \(renderer.format)"
    }
}
