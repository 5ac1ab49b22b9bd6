import ArgumentParser
import Foundation
import ReverseAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a file forwards or backwards, streamed from disk, exact to the sample.",
        discussion: """
            Plays on an ALSA device (--device NAME, default `default`). On a terminal: space \
            pause/resume, r toggle direction, left/right seek -/+5 s, [ and ] loop start/end at \
            the cursor, l loop on/off, q or Ctrl-C quit. --to-file OUT.wav renders what the \
            device would receive, as fast as possible. --events "AT:ACTION;…" scripts the \
            playback on the output timeline: ACTION is reverse, forward, toggle, seek=TIME, \
            loop=TIME-TIME, noloop, pause, play or stop.
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

    @Option(help: "The ALSA device: any PCM name (default, hw:0, null, file:FILE=x.raw,FORMAT=raw).")
    var device: String?

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
        if toFile != nil && device != nil { throw ValidationError("--device plays, --to-file renders: give one") }
    }

    func run() async throws {
        FFmpegDiagnostics.show(.quiet)
        do {
            if let toFile {
                let result = try await SignalCancellation.run { [self] in
                    try await BlockingWork.run { flag in try render(to: toFile, cancellation: flag) }
                }
                Console.out(result)
            } else {
                try await SignalCancellation.run { [self] in try await playOnDevice() }
            }
        } catch is CancellationError where toFile == nil {
            // A signal ended the playback: nothing to clean up but the terminal (done).
            throw ErrorReporting.exitCode(for: CancellationError())
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }

    /// The renderer the options ask for (start, loop and events set), with the loop it starts with.
    private func makeRenderer() throws -> (renderer: PlaybackRenderer, loop: Range<Int64>?) {
        let renderer = try PlaybackRenderer(url: try StandardStreams.seekableInputURL(input), direction: reverse ? .reverse : .forward)
        let rate = renderer.format.sampleRate
        let length = renderer.frameCount
        let frame = { (time: TimePosition, name: String) throws -> Int64 in
            let value = time.frame(atRate: rate)
            guard value <= length else {
                throw CommandLineError("\(name) \(time) is past the end of \(input) (\(length) frames)")
            }
            return value
        }
        var region: Range<Int64>?
        if loop { region = 0..<length }
        if let loopStart, let loopEnd {
            let (lower, upper) = (try frame(loopStart, "--loop-start"), try frame(loopEnd, "--loop-end"))
            guard lower < upper else { throw CommandLineError("--loop-start must come before --loop-end") }
            region = lower..<upper
        }
        // Taken before the first frame is rendered: the same as starting there.
        if let from { renderer.apply(.seek(toFrame: try frame(from, "--from"))) }
        if let region { renderer.apply(.loop(region)) }
        for (at, command) in try PlaybackScript.parse(events ?? "", sampleRate: rate) {
            renderer.schedule(command, atOutputFrame: at)
        }
        return (renderer, region)
    }

    private func render(to path: String, cancellation: CancellationFlag) throws -> String {
        let (renderer, _) = try makeRenderer()
        let rate = renderer.format.sampleRate
        try renderer.render(toFile: StandardStreams.outputURL(path), maximumFrames: duration.map { $0.frame(atRate: rate) },
                            overwrite: overwrite, cancellation: cancellation)
        renderer.warnings.forEach(ErrorReporting.printWarning)
        let seconds = String.seconds(Double(renderer.framesRendered) / Double(rate))
        return "rendered \(input) -> \(path): \(seconds), \(renderer.framesRendered) frames, \(renderer.format)"
    }

    /// Plays on the device until the end, `q`, or a signal; keys and a status line on a terminal.
    private func playOnDevice() async throws {
        let (renderer, region) = try makeRenderer()
        let rate = renderer.format.sampleRate
        if let duration { renderer.schedule(.stop, atOutputFrame: duration.frame(atRate: rate)) }
        let frameCount = renderer.frameCount
        let info = renderer.info
        let player = AudioPlayer(renderer: renderer, device: try SystemAudioOutput.device(named: device))
        try player.start()
        let keyboard = RawTerminal.enter() ? PlayKeyboard(player: player, markers: LoopMarkers(region: region, frameCount: frameCount)) : nil
        let statusLine = Console.standardErrorIsTerminal ? PlayStatusLine(info: info, path: input) : nil
        keyboard?.start()
        var failure: ReverseAudioError?
        var last = player.status
        var drawn = false
        for await event in player.events {
            switch event {
            case .position(let status), .loopWrapped(let status), .endReached(let status):
                last = status
            case .failed(let error):
                failure = error
            }
            if let statusLine {
                let markers = keyboard?.loopMarkers ?? LoopMarkers(region: last.state.loop, frameCount: frameCount)
                Console.errorRaw("\r" + statusLine.text(last, markers: markers, width: Self.terminalWidth()) + "\u{1B}[K")
                drawn = true
            }
        }
        keyboard?.stop()
        player.stop()
        player.warnings.forEach(ErrorReporting.printWarning)
        RawTerminal.restore()
        if drawn { Console.errorRaw("\n") }
        if let failure { throw failure }
        try Task.checkCancellation()
        let seconds = String.seconds(Double(last.framesRendered) / Double(rate))
        let underruns = last.underruns == 0 ? "" : ", \(last.underruns) underrun\(last.underruns == 1 ? "" : "s")"
        Console.out("played \(input) on \(device ?? "default"): \(seconds) (\(last.framesRendered) frames)\(underruns)")
    }

    /// Columns of the terminal standard error is on (80 when it does not say).
    private static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
