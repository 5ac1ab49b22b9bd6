import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioCommandLine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct PlayCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a file forwards or backwards, streamed from disk, exact to the sample.",
        discussion: """
            Plays on an ALSA device (--device NAME, default `default`). On a terminal: space \
            pause/resume, r toggle direction, left/right seek -/+5 s, [ and ] loop start/end at \
            the cursor, l loop on/off, q or Ctrl-C quit. --to-file OUT renders what the \
            device would receive, as fast as possible, in the format OUT's extension names. \
            --device null --realtime plays to nowhere at the pace of a sound card, to try the \
            keys and the status line on a machine without one. --events "AT:ACTION;..." scripts \
            the playback on the output timeline: ACTION is \(PlaybackScript.actionForms).
            """)

    static let examples = [
        "reverse-audio play song.mp3 --reverse",
        "reverse-audio play song.mp3 --device null --realtime   # keys and status line, no sound card needed",
        "reverse-audio play song.flac --to-file take.wav --loop-start 10 --loop-end 12 --duration 30",
        "reverse-audio play song.mp3 --to-file out.mp3 --events \"2:reverse;4:seek=0:30;6:stop\"",
    ]

    @Argument(help: "The file to play.", completion: .file())
    var input: String

    @Flag(help: "Start backwards (from the end unless --from).")
    var reverse = false

    @Option(help: "Start here.", transform: TimeValue.position)
    var from: TimePosition?

    @Flag(help: "Loop the whole file.")
    var loop = false

    @Option(help: "Loop from here...", transform: TimeValue.position)
    var loopStart: TimePosition?

    @Option(help: "...to here (exclusive).", transform: TimeValue.position)
    var loopEnd: TimePosition?

    @Option(help: "The ALSA device: any PCM name (default, hw:0, null, file:FILE=x.raw,FORMAT=raw).")
    var device: String?

    @Option(help: ArgumentHelp("Write what the device would receive to FILE instead of playing it; its extension picks the format (\(OutputFormat.names.joined(separator: " "))), as convert.",
                               valueName: "FILE"), completion: .file())
    var toFile: String?

    @Flag(help: "Pace the output to the clock, as a sound card would (for --device null, which takes frames as fast as they come).")
    var realtime = false

    @Option(help: ArgumentHelp("Scripted commands on the output timeline, AT:ACTION;AT:ACTION...; ACTION is \(PlaybackScript.actionForms).",
                               valueName: "AT:ACTION;..."))
    var events: String?

    @Option(help: "Stop after this much output (at most 1000000 s).", transform: TimeValue.position)
    var duration: TimePosition?

    @OptionGroup var effects: EffectFlags

    @OptionGroup(title: SharedOptions.title) var overwriting: OverwriteOptions
    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions
    @OptionGroup(title: SharedOptions.title) var result: JSONResultOption

    func validate() throws {
        if (loopStart == nil) != (loopEnd == nil) { throw ValidationError("--loop-start and --loop-end go together") }
        if loop && loopStart != nil { throw ValidationError("--loop is the whole file; give it or --loop-start/--loop-end") }
        if toFile != nil && device != nil { throw ValidationError("--device plays, --to-file renders: give one") }
        if toFile != nil && realtime { throw ValidationError("--realtime paces a device; --to-file renders as fast as it can: give one") }
        if let toFile { try ConversionFlags.validateFormat(nil, output: toFile) }
        if case .seconds(let start) = loopStart, case .seconds(let end) = loopEnd, start >= end {
            throw ValidationError("--loop-start must come before --loop-end (\(start) s is not before \(end) s)")
        }
        if case .frames(let start) = loopStart, case .frames(let end) = loopEnd, start >= end {
            throw ValidationError("--loop-start must come before --loop-end (frame \(start) is not before frame \(end))")
        }
        // The script's syntax and limits are checked now (its times become frames once the rate is known).
        if let events {
            do {
                _ = try PlaybackScript.parse(events, sampleRate: 48_000)
            } catch {
                throw ValidationError("--events: \(error)")
            }
        }
    }

    func run() async throws {
        do {
            if let toFile {
                let rendered = try await SignalCancellation.run { [self] in
                    try await BlockingWork.run { flag in try render(to: toFile, cancellation: flag) }
                }
                result.print(rendered.text, json: ["input": input, "output": toFile, "frames": rendered.frames,
                                                   "durationSeconds": rendered.seconds, "status": "done"], output: toFile)
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
        let renderer = try PlaybackRenderer(url: try StandardStreams.seekableInputURL(input), direction: reverse ? .reverse : .forward,
                                            effects: effects.effects)
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

    private func render(to path: String, cancellation: CancellationFlag) throws -> (text: String, frames: Int64, seconds: Double) {
        let (renderer, _) = try makeRenderer()
        let rate = renderer.format.sampleRate
        try renderer.render(toFile: StandardStreams.outputURL(path), maximumFrames: duration.map { $0.frame(atRate: rate) },
                            overwrite: overwriting.overwrite, cancellation: cancellation)
        renderer.warnings.forEach(ErrorReporting.printWarning)
        let seconds = Double(renderer.framesRendered) / Double(rate)
        return ("rendered \(input) -> \(path): \(String.seconds(seconds)), \(renderer.framesRendered) frames, \(renderer.format)",
                renderer.framesRendered, seconds)
    }

    /// Plays on the device until the end, `q`, or a signal; keys and a status line on a terminal.
    private func playOnDevice() async throws {
        let (renderer, region) = try makeRenderer()
        let rate = renderer.format.sampleRate
        if let duration { renderer.schedule(.stop, atOutputFrame: duration.frame(atRate: rate)) }
        let frameCount = renderer.frameCount
        let info = renderer.info
        let output = try SystemAudioOutput.device(named: device)
        let player = AudioPlayer(renderer: renderer, device: realtime ? PacedOutputDevice(output) : output)
        try player.start()
        let keyboard = RawTerminal.enter() ? PlayKeyboard(player: player, markers: LoopMarkers(region: region, frameCount: frameCount)) : nil
        let statusLine = Console.standardErrorIsTerminal && !Console.isQuiet ? PlayStatusLine(info: info, path: input) : nil
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
        let seconds = Double(last.framesRendered) / Double(rate)
        let underruns = last.underruns == 0 ? "" : ", \(last.underruns) underrun\(last.underruns == 1 ? "" : "s")"
        result.print("played \(input) on \(device ?? "default"): \(String.seconds(seconds)) (\(last.framesRendered) frames)\(underruns)",
                     json: ["input": input, "device": device ?? "default", "frames": last.framesRendered, "durationSeconds": seconds,
                            "underruns": last.underruns, "status": "done"])
    }

    /// Columns of the terminal standard error is on (80 when it does not say).
    private static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
