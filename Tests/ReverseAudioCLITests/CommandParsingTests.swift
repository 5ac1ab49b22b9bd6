import ArgumentParser
import Foundation
@testable import ReverseAudio
@testable import ReverseAudioBatch
@testable import ReverseAudioCLI
@testable import ReverseAudioCommandLine
import Testing

/// Command lines parsed in process by the tool's root command, as `reverse-audio` parses them:
/// flags land in the right values, and every conflict or value out of range is refused by
/// parsing or `validate()` with the one-line message and the usage status (64) the process
/// tests expect. No input is opened: validation only looks at names.
@Suite struct CommandParsingTests {
    /// The command `arguments` parse to.
    static func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try ReverseAudioCommand.parseAsRoot(arguments)
    }

    /// The subcommand of the root command that `name` names.
    static func subcommand(_ name: String) throws -> any ParsableCommand.Type {
        try #require(ReverseAudioCommand.configuration.subcommands.first { $0.configuration.commandName == name }, "no command \(name)")
    }

    /// Why a command line was refused: the one line the tool prints after "error: ", and the
    /// exit status (asked for separately: each of the parser's answers costs a tenth of a second
    /// in a debug build, where it checks the command's declarations every time).
    struct Refusal: Equatable {
        let command: any ParsableCommand.Type
        let error: any Error
        let message: String

        var status: Int32 { command.exitCode(for: error).rawValue }

        static func == (left: Refusal, right: Refusal) -> Bool { left.message == right.message && left.status == right.status }
    }

    /// Why `arguments` are refused (nil when they parse), parsed by the subcommand they name:
    /// the same parse and checks as from the root (``rootRefusal(_:)``).
    static func refusal(_ arguments: [String]) throws -> Refusal? {
        let command = try subcommand(try #require(arguments.first))
        do {
            _ = try command.parseAsRoot(Array(arguments.dropFirst()))
            return nil
        } catch {
            return Refusal(command: command, error: error, message: ReverseAudioCommand.oneLine(command.message(for: error)))
        }
    }

    /// Why `arguments` are refused by the root command, as the tool parses them.
    static func rootRefusal(_ arguments: [String]) -> Refusal? {
        do {
            _ = try ReverseAudioCommand.parseAsRoot(arguments)
            return nil
        } catch {
            return Refusal(command: ReverseAudioCommand.self, error: error,
                           message: ReverseAudioCommand.oneLine(ReverseAudioCommand.message(for: error)))
        }
    }

    /// Expects `arguments` refused with exactly `message` (a usage error: ``rootParsesAlike()``
    /// checks the status of one refusal of each kind, from the root).
    static func expectRefused(_ arguments: [String], _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard let refused = try refusal(arguments) else {
            Issue.record("\(arguments.joined(separator: " ")) parsed", sourceLocation: sourceLocation)
            return
        }
        #expect(refused.message == message, "\(arguments.joined(separator: " "))", sourceLocation: sourceLocation)
    }

    // MARK: What parses

    @Test("convert: every flag lands in its value")
    func convertFlags() throws {
        let parsed = try Self.parse(["convert", "in.wav", "-o", "out.mp3", "--reverse", "--channels", "1", "--sample-rate", "48000",
                                     "--bitrate", "192k", "--start", "1:02.5", "--duration", "100s", "--gain=-6", "--fade-in", "0.5",
                                     "--fade-shape", "q", "--threads", "4", "--block-frames", "1024", "-y", "-q", "--json",
                                     "--progress", "json", "--sample-format", "s24"])
        let command = try #require(parsed as? ConvertCommand)
        #expect(command.input == "in.wav" && command.output == nil && command.reverse)
        #expect(try command.shared.output(positional: command.output, command: "convert") == "out.mp3")
        #expect(command.flags.channels == .channel(1))
        #expect(command.flags.sampleRate == 48000)
        #expect(command.flags.bitrate?.bitsPerSecond == 192_000)
        #expect(command.flags.sampleFormat == .s24)
        #expect(command.flags.threads == 4 && command.flags.blockFrames == 1024)
        #expect(try command.flags.range.range() == TimeRange(start: .seconds(62.5), duration: .frames(100)))
        #expect(command.flags.effects.gain == -6)
        #expect(command.flags.effects.fadeIn == .seconds(0.5))
        #expect(command.flags.effects.fadeShape == .quarterSine)
        #expect(command.flags.effects.effects.map(\.description)
                == [Gain(decibels: -6).description, Fade(.in, length: .seconds(0.5), shape: .quarterSine).description])
        #expect(command.shared.overwrite && command.shared.verbosity.quiet && command.shared.result.json)
        #expect(command.shared.progress.progress == .json)
    }

    @Test("convert: the defaults when only the files are named")
    func convertDefaults() throws {
        let command = try #require(try Self.parse(["convert", "a.wav", "b.wav"]) as? ConvertCommand)
        #expect(command.output == "b.wav" && !command.reverse)
        #expect(command.flags.channels == .all)
        #expect(command.flags.sampleFormat == nil && command.flags.sampleRate == nil && command.flags.bitrate == nil)
        #expect(!command.flags.range.isGiven)
        #expect(try command.flags.range.range() == nil)
        #expect(command.flags.effects.effects.isEmpty)
        #expect(command.flags.effects.fadeShape == .logarithmic)
        #expect(!command.shared.overwrite && !command.shared.overwriting.neverOverwrite)
        #expect(!command.shared.verbosity.verbose && !command.shared.verbosity.quiet && !command.shared.result.json)
    }

    @Test("reverse: paths, folders, jobs, shards and the output folder")
    func reverseFlags() throws {
        let batch = try #require(try Self.parse(["reverse", "Music", "More", "-o", "Out", "--no-recursive", "--jobs", "4", "--shard", "1/3",
                                                 "--all-formats", "--verify"]) as? ReverseCommand)
        #expect(batch.paths == ["Music", "More"])
        #expect(!batch.recursive && batch.allFormats && batch.verify)
        #expect(batch.jobs == 4)
        let share = try #require(Shard(index: 1, count: 3))
        #expect(batch.shard == .fixed(share))
        #expect(batch.outputFolder.outputDirectory == "Out")
        let auto = try #require(try Self.parse(["reverse", "Music", "--shard", "auto", "--shard-count", "8"]) as? ReverseCommand)
        #expect(auto.shard == .auto && auto.shardCount == 8 && auto.recursive)
        #expect(auto.outputFolder.outputDirectory == "Reversed")
    }

    @Test("play, split, waveform and serve: values that pass, in each form they take")
    func otherCommandsParse() throws {
        let play = try #require(try Self.parse(["play", "in.wav", "--reverse", "--from", "1:00", "--loop-start", "10s", "--loop-end", "0.5",
                                                "--events", "1:pause;2:play"]) as? PlayCommand)
        // Frames against seconds depend on the rate: decided once the file is open, not here.
        #expect(play.reverse && play.from == .seconds(60) && play.loopStart == .frames(10) && play.loopEnd == .seconds(0.5))
        #expect(play.events == "1:pause;2:play")
        let split = try #require(try Self.parse(["split", "a.wav", "-o", "parts", "--silence=-48:0.5", "--name", "%n - %t"]) as? SplitCommand)
        #expect(split.silence == "-48:0.5" && split.outputDirectory == "parts" && split.name == "%n - %t")
        let setting = try SplitCommand.silenceSetting("-48:0.5")
        #expect(setting.thresholdDB == -48 && setting.minimum == .seconds(0.5))
        #expect(try SplitCommand.silenceSetting("0:100s").minimum == .frames(100))
        _ = try #require(try Self.parse(["waveform", "a.wav", "w.png", "--waveform-color", "#2040A0", "--amplitude-scale", "auto"])
                         as? WaveformCommand)
        _ = try #require(try Self.parse(["waveform", "a.wav", "w.dat", "--zoom", "256, 512", "--bits", "8"]) as? WaveformCommand)
        let serve = try #require(try Self.parse(["serve", "Music", "--port", "0", "--allow-url-hosts", "Media.Example.org, cdn.example.org:8443"])
                                 as? ServeCommand)
        #expect(serve.folder == "Music" && serve.port == 0)
        #expect(serve.urlHosts == ["media.example.org", "cdn.example.org:8443"])
    }

    // MARK: What validation refuses

    @Test("convert: conflicting and out-of-range flags are refused by validation", arguments: [
        (["convert", "in.wav", "out.wav", "--end", "2", "--duration", "1"], "give --end or --duration, not both"),
        (["convert", "in.wav", "out.wav", "--start", "3", "--end", "2"], "invalid range: the end (2.000 s) must come after the start (3.000 s)"),
        (["convert", "in.wav", "out.wav", "--start", "10s", "--end", "10s"], "invalid range: the end (10s) must come after the start (10s)"),
        (["convert", "in.wav", "out.wav", "--end", "0"], "invalid range: the end (0.000 s) must come after the start (0s)"),
        (["convert", "in.wav", "out.wav", "--duration", "0s"], "invalid range: the duration must be longer than 0"),
        (["convert", "in.wav", "out.wav", "--threads", "0"], "--threads must be 1 to 256"),
        (["convert", "in.wav", "out.wav", "--threads", "257"], "--threads must be 1 to 256"),
        (["convert", "in.wav", "out.wav", "--block-frames", "0"], "--block-frames must be at least 1"),
        (["convert", "in.wav", "out.wav", "--sample-rate", "0"], "--sample-rate must be a positive number of Hz"),
        (["convert", "in.wav", "out.wav", "--gain", "201"], "--gain must be between -200 and 200 dB"),
        (["convert", "in.wav", "out.wav", "--gain=-200.5"], "--gain must be between -200 and 200 dB"),
        (["convert", "in.wav", "out.wav", "--gain", "inf"], "--gain must be between -200 and 200 dB"),
        (["convert", "in.wav", "out.wav", "-y", "-n"], "-y overwrites and -n never does: give one of them"),
        (["convert", "in.wav", "out.wav", "--overwrite", "--no-overwrite"], "-y overwrites and -n never does: give one of them"),
        (["convert", "in.wav", "out.wav", "--verbose", "-q"], "--verbose and --quiet exclude each other: give one of them"),
        (["convert", "in.wav", "out.wav", "-o", "other.wav"], "give the output once: as the last argument or with -o, not both"),
        (["convert", "in.wav"], "give the file to write: -o FILE"),
        (["convert", "in.wav", "-o", "outdir/"],
         "outdir/ is a folder; convert writes one file: name it (outdir/NAME.EXT); reverse writes a batch into a folder with -o"),
    ])
    func convertRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    @Test("convert: an output no format answers to, or a codec or bit rate it cannot hold, is a usage error naming the choices")
    func formatRefusals() throws {
        let wma = try #require(try Self.refusal(["convert", "in.wav", "x.wma"]))
        #expect(wma.status == 64)
        #expect(wma.message.hasPrefix("x.wma: cannot tell the format from '.wma'; name the file .wav "), "\(wma.message)")
        #expect(wma.message.hasSuffix(", or give --format") && wma.message.contains(".flac") && wma.message.contains(".mp3"), "\(wma.message)")
        let none = try #require(try Self.refusal(["convert", "in.wav", "noextension"]))
        #expect(none.message.hasPrefix("noextension: cannot tell the format from a name without an extension"), "\(none.message)")
        let format = try #require(try Self.refusal(["convert", "in.wav", "x.wav", "--format", "zzz"]))
        #expect(format.status == 64)
        #expect(format.message.hasPrefix("unknown output format 'zzz'; use one of wav, ") && format.message.hasSuffix(" (--format)"),
                "\(format.message)")
        let codec = try #require(try Self.refusal(["convert", "in.wav", "x.mp3", "--codec", "flac"]))
        #expect(codec.status == 64 && codec.message == "a .mp3 file cannot hold flac; it holds mp3", "\(codec.message)")
        let bitrate = try #require(try Self.refusal(["convert", "in.wav", "x.mp3", "--bitrate", "999k"]))
        #expect(bitrate.status == 64 && bitrate.message == "the bit rate must be 8 to 320 kb/s, not 999 kb/s (--bitrate)", "\(bitrate.message)")
        // A batch writes WAV unless told: a codec for another format is refused before any input.
        let batch = try #require(try Self.refusal(["reverse", "x", "--codec", "mp3"]))
        #expect(batch.status == 64 && batch.message.hasPrefix("a .wav file cannot hold mp3; it holds ") && batch.message.contains("pcm"),
                "\(batch.message)")
    }

    @Test("reverse: jobs, inputs and shard counts are checked before any file is walked", arguments: [
        (["reverse", "x", "--jobs", "0"], "--jobs must be 1 to 1024, not 0"),
        (["reverse", "x", "--jobs", "1025"], "--jobs must be 1 to 1024, not 1025"),
        (["reverse"], "give files or folders to reverse, or --files-from FILE"),
        (["reverse", "-o", "Out"], "give files or folders to reverse, or --files-from FILE"),
        (["reverse", "x", "--shard-count", "4"], "--shard-count goes with --shard auto (--shard K/N says the count itself)"),
        (["reverse", "x", "--shard", "0/2", "--shard-count", "4"], "--shard-count goes with --shard auto (--shard K/N says the count itself)"),
        (["reverse", "x", "--shard", "auto", "--shard-count", "0"], "--shard-count must be 1 to 1000000, not 0"),
        (["reverse", "x", "--shard", "auto", "--shard-count", "1000001"], "--shard-count must be 1 to 1000000, not 1000001"),
        (["reverse", "x", "--threads", "0"], "--threads must be 1 to 256"),
        (["reverse", "x", "-y", "-n"], "-y overwrites and -n never does: give one of them"),
    ])
    func reverseRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    @Test("trim, join, compose and split: what they refuse before reading", arguments: [
        (["trim", "in.wav", "out.wav", "--tail", "1", "--start", "0"], "--tail goes alone, without --start, --end or --duration"),
        (["trim", "in.wav", "out.wav", "--tail", "1", "--duration", "2"], "--tail goes alone, without --start, --end or --duration"),
        (["trim", "in.wav", "out.wav", "-o", "x.wav"], "give the output once: as the last argument or with -o, not both"),
        (["join", "a.wav", "b.wav"], "give the file to write: -o FILE"),
        (["compose", "plan.txt"], "give the file to write: -o FILE"),
        (["compose", "plan.txt", "-o", "c.wav", "--gain", "300"], "--gain must be between -200 and 200 dB"),
        (["split", "a.wav", "-o", "parts"], "give one of --at, --every, --cue, --chapters or --silence"),
        (["split", "a.wav", "-o", "parts", "--at", "1", "--every", "2"], "give one of --at, --every, --cue, --chapters or --silence"),
        (["split", "a.wav", "-o", "parts", "--every", "0"], "--every needs a length above 0"),
        (["split", "a.wav", "-o", "parts", "--every", "0.00001"], "--every needs a length above 0"),
        (["split", "a.wav", "-o", "parts", "--at", "1", "--jobs", "0"], "--jobs must be 1 to 1024, not 0"),
        (["split", "a.wav", "-o", "parts", "--at", "1", "--name", "a/%n"], "--name makes file names: no '/' in it"),
        (["split", "a.wav", "b.wav", "-o", "parts", "--cue", "a.cue"], "--cue is one file's sheet: split that file alone with it"),
        (["split", "a.wav", "-o", "parts", "--silence=-48:0"], "--silence -48:0: the shortest silence must last more than 0"),
        (["split", "a.wav", "-o", "parts", "--silence", "x"], "--silence x: give THRESHOLD:D, a level in dB from -200 to 0 and a length (-48:0.5)"),
        (["split", "a.wav", "-o", "parts", "--silence", "1:0.5"], "--silence 1:0.5: give THRESHOLD:D, a level in dB from -200 to 0 and a length (-48:0.5)"),
        (["split", "a.wav", "-o", "parts", "--silence=-201:0.5"],
         "--silence -201:0.5: give THRESHOLD:D, a level in dB from -200 to 0 and a length (-48:0.5)"),
        (["split", "a.wav", "-o", "parts", "--silence=-48:x"],
         "--silence -48:x: not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
    ])
    func editRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    @Test("waveform: picture options refused for data and data options for pictures, sizes and zooms in range", arguments: [
        (["waveform", "in.wav", "w.gif"], "w.gif: cannot tell the format from '.gif'; name the file .png .jpg .jpeg .svg .dat .json"),
        (["waveform", "in.wav", "w.dat", "--bits", "12"], "--bits must be 8 or 16, not 12"),
        (["waveform", "in.wav", "w.png", "--threads", "0"], "--threads must be 1 to 256"),
        (["waveform", "in.wav", "w.png", "--width", "10"], "--width must be 16 to 16384 pixels, not 10"),
        (["waveform", "in.wav", "w.png", "--height", "5000"],
         "--height must be 16 to 4096 pixels, not 5000 (the picture is held in memory: about 9 bytes a pixel)"),
        (["waveform", "in.wav", "w.dat", "--width", "100"], "--width draws a picture; .dat is waveform data"),
        (["waveform", "in.wav", "w.json", "--no-axis-labels"], "--no-axis-labels draws a picture; .json is waveform data"),
        (["waveform", "in.wav", "w.png", "--bits", "8"], "--bits is for waveform data (.dat, .json), not a .png picture"),
        (["waveform", "in.wav", "W.SVG", "--split-channels"], "--split-channels is for waveform data (.dat, .json), not a .svg picture"),
        (["waveform", "in.wav", "w.dat", "--samples-per-pixel", "4294967295"],
         "--samples-per-pixel must be at most 2147483647 (the .dat format's largest), not 4294967295"),
        (["waveform", "in.wav", "w.dat", "--samples-per-pixel", "1"], "--samples-per-pixel must be at least 2, not 1"),
        (["waveform", "in.wav", "w.dat", "--pixels-per-second", "0"], "--pixels-per-second must be at least 1, not 0"),
        (["waveform", "in.wav", "w.dat", "--zoom", "256,256"], "--zoom names a level twice: '256,256'"),
        (["waveform", "in.wav", "w.dat", "--zoom", "256,,512"],
         "--zoom takes frames per pixel separated by commas, each 2 to 2147483647 (256,512,1024), not '256,,512'"),
        (["waveform", "in.wav", "w.dat", "--zoom", "1"], "--zoom takes frames per pixel separated by commas, each 2 to 2147483647 (256,512,1024), not '1'"),
        (["waveform", "in.wav", "w.dat", "--samples-per-pixel", "256", "--zoom", "512"], "give one of --samples-per-pixel, --zoom"),
        (["waveform", "in.wav", "w.png", "--waveform-color", "12345g"],
         "--waveform-color takes a colour as 6 hexadecimal digits, RRGGBB (2040a0), not '12345g'"),
        (["waveform", "in.wav", "w.png", "--background-color", "fff"],
         "--background-color takes a colour as 6 hexadecimal digits, RRGGBB (2040a0), not 'fff'"),
        (["waveform", "in.wav", "w.png", "--amplitude-scale", "0"], "--amplitude-scale takes a number above 0, at most 1000, or auto, not '0'"),
        (["waveform", "in.wav", "w.png", "--amplitude-scale", "1001"], "--amplitude-scale takes a number above 0, at most 1000, or auto, not '1001'"),
        (["waveform", "in.wav", "w.png", "--start", "2", "--end", "1"], "invalid range: the end (1.000 s) must come after the start (2.000 s)"),
    ])
    func waveformRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    @Test("play: loop markers, device against file, and the event script checked at parse time", arguments: [
        (["play", "in.wav", "--loop-start", "1"], "--loop-start and --loop-end go together"),
        (["play", "in.wav", "--loop-end", "1"], "--loop-start and --loop-end go together"),
        (["play", "in.wav", "--loop", "--loop-start", "1", "--loop-end", "2"], "--loop is the whole file; give it or --loop-start/--loop-end"),
        (["play", "in.wav", "--to-file", "p.wav", "--device", "null"], "--device plays, --to-file renders: give one"),
        (["play", "in.wav", "--to-file", "p.wav", "--realtime"], "--realtime paces a device; --to-file renders as fast as it can: give one"),
        (["play", "in.wav", "--loop-start", "0.3", "--loop-end", "0.1"], "--loop-start must come before --loop-end (0.3 s is not before 0.1 s)"),
        (["play", "in.wav", "--loop-start", "10s", "--loop-end", "10s"], "--loop-start must come before --loop-end (frame 10 is not before frame 10)"),
        (["play", "in.wav", "--events", "1:jump"],
         "--events: event '1:jump': write AT:ACTION, AT a time and ACTION one of reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play or stop"),
        (["play", "in.wav", "--events", "1:loop=2-1"], "--events: event '1:loop=2-1': the loop's start must come before its end"),
    ])
    func playRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    @Test("video and serve: their ranges and exclusive options", arguments: [
        (["video", "v.mov", "v.mp4", "--crf", "99"], "--crf must be 0 to 51, not 99.0"),
        (["video", "v.mov", "v.mp4", "--crf", "20", "--lossless"], "--crf and --lossless exclude each other"),
        (["video", "v.mov", "v.mp4", "--memory-limit=-1"], "--memory-limit cannot be negative"),
        (["video", "v.mov", "v.mp4", "--memory-limit", "2000000"], "--memory-limit is in MiB; 2000000 MiB is more than 1 TiB"),
        (["serve", "--port", "70000"], "--port must be 0 to 65535, not 70000"),
        (["serve", "--upload-limit", "0"], "--upload-limit is in MiB, 1 or more, not 0"),
        (["serve", "--keep-uploads", "0"], "--keep-uploads is in minutes, more than 0 and at most 525600 (a year), not 0.0"),
        (["serve", "--url-timeout", "3601"], "--url-timeout is in seconds, more than 0 and at most 3600, not 3601.0"),
        (["serve", "--token", "abcdefghijklmnopq", "--token-file", "t"], "--token and --token-file exclude each other: give one of them"),
        (["serve", "--allow-playlists"], "serve never opens playlists (files that name others to read): --allow-playlists is for the other commands"),
    ])
    func videoAndServeRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    // MARK: What parsing refuses

    @Test("a value its option cannot read is named with the option and the reason, on one line", arguments: [
        (["convert", "in.wav", "out.wav", "--start", "abc"],
         "The value 'abc' is invalid for '--start <start>': not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
        (["convert", "in.wav", "out.wav", "--fade-in", "1:60"],
         "The value '1:60' is invalid for '--fade-in <fade-in>': has 60 in its seconds field: write less than 60 after a colon"),
        (["trim", "in.wav", "out.wav", "--pad-end", "86401"],
         "The value '86401' is invalid for '--pad-end <pad-end>': more than the longest silence, 86400 s (24:00:00)"),
        (["play", "in.wav", "--from", "1e15"],
         "The value '1e15' is invalid for '--from <from>': more than the longest time accepted, 1000000 s (277:46:40)"),
        (["split", "a.wav", "-o", "p", "--every", "x"],
         "The value 'x' is invalid for '--every <D>': not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
        (["convert", "in.wav", "out.wav", "--channels", "both"],
         "The value 'both' is invalid for '--channels <channels>'. Please provide one of 'all', 'first', 'mix' or 'N'."),
        (["convert", "in.wav", "out.wav", "--sample-format", "s12"],
         "The value 's12' is invalid for '--sample-format <sample-format>'. Please provide one of the following: native, u8, s16, s24, s32, f32, f64"),
        (["convert", "in.wav", "out.wav", "--progress", "loud"],
         "The value 'loud' is invalid for '--progress <progress>'. Please provide one of 'auto', 'bar', 'json' or 'none'."),
        (["convert", "in.wav", "out.wav", "--fade-shape", "z"],
         "The value 'z' is invalid for '--fade-shape <fade-shape>'. Please provide one of 't', 'q', 'h', 'l' or 'p'."),
        (["completion", "tcsh"], "The value 'tcsh' is invalid for '<shell>'. Please provide one of 'bash', 'zsh' or 'fish'."),
        (["convert", "in.wav", "out.mp3", "--bitrate", "0"], "The value '0' is invalid for '--bitrate <bitrate>'"),
        (["reverse", "x", "--shard", "4/4"], "The value '4/4' is invalid for '--shard <K/N|auto>'"),
    ])
    func valueRefusals(_ arguments: [String], _ message: String) throws {
        try Self.expectRefused(arguments, message)
    }

    @Test("a misspelt flag is refused with the flag it was meant to be", arguments: [
        (["convert", "a.wav", "b.wav", "--revrse"], "--reverse"), (["convert", "a.wav", "b.wav", "--sample-rat", "8000"], "--sample-rate"),
        (["reverse", "x", "--job", "2"], "--jobs"), (["waveform", "a.wav", "w.png", "--widht", "100"], "--width"),
        (["play", "a.wav", "--loop-strat", "1"], "--loop-start"), (["split", "a.wav", "-o", "p", "--at", "1", "--nmae", "x"], "--name"),
    ])
    func misspeltFlags(_ arguments: [String], _ meant: String) throws {
        let typed = try #require(arguments.last { $0.hasPrefix("--") })
        let refused = try #require(try Self.refusal(arguments))
        #expect(refused.message == "Unknown option '\(typed)'. Did you mean '\(meant)'?")
    }

    @Test("from the root command, as the tool parses, each command refuses alike")
    func rootParsesAlike() throws {
        // A check in an option group, one in the command, a value its transform refuses, a value not
        // among the choices, an unknown option.
        for arguments in [["convert", "in.wav", "out.wav", "--threads", "0"], ["reverse", "x", "--jobs", "0"], ["play", "in.wav", "--loop-end", "1"],
                          ["convert", "in.wav", "out.wav", "--start", "abc"], ["completion", "tcsh"], ["info", "--bogus", "a.wav"]] {
            let root = try #require(Self.rootRefusal(arguments), "\(arguments) parsed")
            let alone = try #require(try Self.refusal(arguments), "\(arguments) parsed")
            #expect(root == alone, "\(arguments)")
            #expect(root.status == 64)
        }
        #expect(Self.rootRefusal(["info", "--bogus", "a.wav"])?.message.hasPrefix("Unknown option '--bogus'") == true)
        // A word that names no command is refused by the root too.
        #expect(Self.rootRefusal(["convrt", "a.wav"])?.status == 64)
    }

    // MARK: Values of their own

    @Test("--channels: all, first, mix (or mono) in any case, or a channel from 0", arguments: [
        ("all", ChannelSelection.all), ("ALL", .all), ("first", .first), ("mix", .mix), ("mono", .mix), ("Mono", .mix), ("0", .channel(0)),
        ("7", .channel(7)), ("both", nil), ("1.5", nil), ("", nil), ("-1", nil), (" 1", nil),
    ] as [(String, ChannelSelection?)])
    func channels(_ text: String, _ expected: ChannelSelection?) {
        #expect(ChannelSelection(argument: text) == expected)
        if let expected { #expect(ChannelSelection(argument: expected.description) == expected) }
    }

    @Test("--bitrate: digits and one point, with k or M, more than 0 and at most 100M", arguments: [
        ("192000", 192_000), ("192k", 192_000), ("192K", 192_000), ("96.5k", 96_500), ("1.5M", 1_500_000), ("1.5m", 1_500_000),
        ("100M", 100_000_000), ("0.5k", 500), ("", nil), ("k", nil), ("M", nil), ("0", nil), ("0k", nil), ("0.4", nil), ("0.0004k", nil),
        ("0.5", 1), ("-5", nil), ("1e3", nil),
        ("inf", nil), ("nan", nil), ("100.1M", nil), ("100000001", nil), ("1.2.3k", nil), ("١٢٣", nil), (" 192k", nil), ("192kb", nil),
    ] as [(String, Int?)])
    func bitRates(_ text: String, _ bits: Int?) {
        #expect(BitRate(argument: text)?.bitsPerSecond == bits)
    }

    @Test("--shard: auto, or K/N in digits with 0 <= K < N <= 1000000", arguments: [
        ("auto", ShardOption.auto), ("0/1", .fixed(Shard(index: 0, count: 1)!)), ("3/4", .fixed(Shard(index: 3, count: 4)!)),
        ("00/02", .fixed(Shard(index: 0, count: 2)!)), ("999999/1000000", .fixed(Shard(index: 999_999, count: 1_000_000)!)),
        ("2/2", nil), ("1/0", nil), ("0/0", nil), ("-1/2", nil), ("+1/2", nil), ("a/b", nil), ("1/2/3", nil), ("1//2", nil),
        (" 1/2", nil), ("0/1000001", nil), ("0/99999999", nil), ("1/", nil), ("/2", nil), ("AUTO", nil), ("", nil),
    ] as [(String, ShardOption?)])
    func shards(_ text: String, _ expected: ShardOption?) {
        #expect(ShardOption(argument: text) == expected)
    }

    @Test("shares of a batch: every file in exactly one of N, the same for every worker")
    func shardsPartition() throws {
        let paths = (0..<60).map { "album \($0 % 7)/track \($0).flac" } + ["a.wav", "A.wav", "a.WAV", ""]
        for count in 1...6 {
            let shares = try (0..<count).map { try #require(Shard(index: $0, count: count)) }
            for path in paths {
                #expect(shares.filter { $0.contains(relativePath: path) }.count == 1, "\(path) in \(count) shares")
            }
            #expect(shares.map(\.description) == (0..<count).map { "\($0)/\(count)" })
            #expect(shares.map { Shard($0.description) } == shares.map(Optional.some))
        }
    }

    // MARK: Words that look like flags, and suggestions

    @Test("a value starting with '-' joins the option that takes it, whose own check then names it")
    func dashValues() throws {
        let takesValue: (String) -> Bool = { ["--jobs", "--gap", "--start"].contains($0) }
        let jobs = FlagLookalikes.joiningDashValues(["reverse", "x", "--jobs", "-1"], takesValue: takesValue)
        #expect(jobs == ["reverse", "x", "--jobs=-1"])
        #expect(FlagLookalikes.firstFileName(in: jobs) == nil)
        try Self.expectRefused(jobs, "--jobs must be 1 to 1024, not -1")
        let gap = FlagLookalikes.joiningDashValues(["join", "a.wav", "b.wav", "-o", "j.wav", "--gap", "-1"], takesValue: takesValue)
        try Self.expectRefused(gap, "The value '-1' is invalid for '--gap <gap>': negative; it must be 0 or more (times count from 0)")
        // A flag takes no value; after --, and an option already given its value, nothing is joined.
        #expect(FlagLookalikes.joiningDashValues(["convert", "--reverse", "-dash.mp3", "x.wav"], takesValue: takesValue)
                == ["convert", "--reverse", "-dash.mp3", "x.wav"])
        #expect(FlagLookalikes.joiningDashValues(["convert", "--", "--start", "-1"], takesValue: takesValue) == ["convert", "--", "--start", "-1"])
        #expect(FlagLookalikes.joiningDashValues(["trim", "--start=2", "-y"], takesValue: takesValue) == ["trim", "--start=2", "-y"])
        #expect(FlagLookalikes.joiningDashValues(["trim", "--start"], takesValue: takesValue) == ["trim", "--start"])
    }

    @Test("a word of one dash that is not all short flags is taken for a file name", arguments: [
        (["convert", "-dash.mp3", "x.wav"], "-dash.mp3"), (["convert", "--reverse", "-dash.mp3"], "-dash.mp3"), (["convert", "-1"], "-1"),
        (["convert", "a", "b", "-yq"], nil), (["convert", "-hnoyq"], nil), (["convert", "-"], nil), (["convert", "--", "-dash.mp3"], nil),
        (["convert", "--start=-1", "-y"], nil), (["info", "-ny", "-x.wav", "-z.wav"], "-x.wav"),
    ] as [([String], String?)])
    func fileNamesLikeFlags(_ arguments: [String], _ name: String?) {
        #expect(FlagLookalikes.firstFileName(in: arguments) == name)
    }

    @Test("ffmpeg's and SoX's options are answered with ours; any other dash word is told how to name the file")
    func peerOptionMessages() {
        #expect(FlagLookalikes.message(for: "-ss") == "-ss: not an option of reverse-audio (ffmpeg's); use --start")
        #expect(FlagLookalikes.message(for: "-i") == "-i: not an option of reverse-audio (ffmpeg's); the input is the first argument, without -i")
        #expect(FlagLookalikes.message(for: "-ar") == "-ar: not an option of reverse-audio (ffmpeg's); use --sample-rate")
        #expect(FlagLookalikes.message(for: "-t") == "-t: not an option of reverse-audio (ffmpeg's); use --duration")
        #expect(FlagLookalikes.message(for: "-dash.mp3")
                == "-dash.mp3: not an option; to name a file that starts with '-', write ./-dash.mp3 or put -- before it")
        // Every habit answered is one the lookalike check catches, so its answer is reached.
        for habit in FlagLookalikes.peerOptions.keys {
            #expect(FlagLookalikes.firstFileName(in: ["convert", "in.wav", habit, "1"]) == habit)
        }
    }

    @Test("a mistyped command gets the nearest command's name", arguments: [
        ("revers", "reverse"), ("cnvert", "convert"), ("inf", "info"), ("PLAY", "play"), ("wavefrom", "waveform"), ("tirm", "trim"),
        ("splt", "split"), ("co", "convert"), ("xyzzy", nil), ("", nil), ("reverse-audio", nil),
    ] as [(String, String?)])
    func commandSuggestions(_ typed: String, _ meant: String?) {
        #expect(Suggestion.nearest(to: typed, in: ReverseAudioCommand.commandNames) == meant)
    }

    @Test("the commands suggestions are drawn from, and the distance they use")
    func commandNames() {
        #expect(ReverseAudioCommand.commandNames == ["reverse", "convert", "video", "trim", "split", "join", "compose", "play", "info", "list",
                                                     "waveform", "serve", "completion"])
        #expect(Suggestion.distance("kitten", "sitting") == 3)
        #expect(Suggestion.distance("", "abc") == 3 && Suggestion.distance("abc", "") == 3)
        #expect(Suggestion.distance("trim", "tirm") == Suggestion.distance("tirm", "trim"))
        #expect(Suggestion.distance("same", "same") == 0)
    }

    // MARK: Help, version and one-line messages

    @Test("help ends with the command's examples; the version is the tool's; both exit 0")
    func helpAndVersion() throws {
        for arguments in [["convert", "--help"], ["help", "trim"]] {
            // The parser answers help with a command of its own, whose run gives the text.
            var help = try ReverseAudioCommand.parseAsRoot(arguments)
            do {
                try help.run()
                Issue.record("\(arguments) ran")
            } catch {
                #expect(ReverseAudioCommand.exitCode(for: error).rawValue == 0)
                let text = ReverseAudioCommand.helpText(ReverseAudioCommand.fullMessage(for: error), arguments: arguments)
                let examples = arguments.contains("trim") ? TrimCommand.examples : ConvertCommand.examples
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                #expect(Array(lines.suffix(examples.count + 1)) == ["EXAMPLES:"] + examples.map { "  " + $0 }, "\(text)")
                #expect(text.contains("SHARED OPTIONS:") && text.contains("-y, --overwrite"), "\(text)")
            }
        }
        do {
            _ = try ReverseAudioCommand.parseAsRoot(["--version"])
            Issue.record("--version parsed")
        } catch {
            #expect(ReverseAudioCommand.exitCode(for: error).rawValue == 0)
            let version = ReverseAudioCommand.message(for: error)
            #expect(version == ReverseAudioVersion.string && version.hasPrefix("reverse-audio "))
            #expect(ReverseAudioCommand.helpText(version, arguments: ["--version"]) == version)
        }
    }

    @Test("the parser's list of choices becomes one line; a one-line message is left alone")
    func oneLineMessages() {
        #expect(ReverseAudioCommand.oneLine("Pick one of the following:\n  - u8\n  - s16\n") == "Pick one of the following: u8, s16")
        #expect(ReverseAudioCommand.oneLine("first\n  second") == "first second")
        #expect(ReverseAudioCommand.oneLine("one line") == "one line")
        #expect(ReverseAudioCommand.oneLine("") == "")
    }
}

/// Each error the tool reports becomes one line with the flag that fixes it, and the exit status
/// it goes with: 64 for what the command line asked, 1 for a file that failed, 130 when cancelled.
@Suite struct ErrorReportingInProcessTests {
    @Test("library errors gain the flag that changes them; usage mistakes exit 64, failed files 1", arguments: [
        (ReverseAudioError.output(.outputExists(path: "o.wav")), "o.wav: output already exists (use -y to overwrite)", 1),
        (.output(.unsupportedSampleRate(path: "o.mp3", codec: "mp3", sampleRate: 96000, supported: [32000, 44100, 48000])),
         "o.mp3: mp3 cannot hold 96000 Hz audio (it holds 32000, 44100, 48000 Hz); add --sample-rate 48000", 1),
        (.output(.unsupportedSampleRate(path: "o.mp3", codec: "mp3", sampleRate: 11000, supported: [8000, 16000])),
         "o.mp3: mp3 cannot hold 11000 Hz audio (it holds 8000, 16000 Hz); add --sample-rate 8000", 1),
        (.setting(.zoomFinerThanSamples(path: "a.wav", samplesPerPixel: 1, sampleRate: 8000)),
         "a.wav: at 8000 Hz that zoom gives 1 sample a pixel; a pixel needs at least 2; choose at most 4000 --pixels-per-second, or --samples-per-pixel 2 or more", 1),
        (.output(.tooManyChannels(path: "o.flac", codec: "flac", channels: 64, maximum: 8)),
         "o.flac: FLAC holds at most 8 channels and the audio has 64; add --channels mix (or a channel), or choose .wav, .aiff or .caf", 1),
        (.output(.tooManyChannels(path: "o.mp3", codec: "mp3", channels: 6, maximum: 2)),
         "o.mp3: MP3 holds at most 2 channels and the audio has 6; add --channels mix (or a channel), or choose .m4a or .flac", 1),
        (.output(.sampleFormatNotStorable(path: "o.flac", codec: "flac", sampleFormat: .s32, storable: [.s16, .s32])),
         "o.flac: FLAC cannot hold s32 samples (it holds s16, s32); choose --sample-format s24, or a WAV, AIFF or CAF output", 1),
        (.output(.sampleFormatNotStorable(path: "o.flac", codec: "flac", sampleFormat: .f32, storable: [.s16])),
         "o.flac: FLAC cannot hold f32 samples (it holds s16); choose --sample-format s16 or s24, or a WAV, AIFF or CAF output", 1),
        (.output(.unknownOutputFormat(path: "x.wma", extension: "wma", known: ["wav", "flac"])),
         "x.wma: cannot tell the format from '.wma'; name the file .wav .flac, or give --format", 64),
        (.output(.unknownOutputFormat(path: "x", extension: "", known: ["png", "svg"])),
         "x: cannot tell the format from a name without an extension; name the file .png .svg", 64),
        (.input(.formatMismatch(path: "b.wav", sampleRate: 44100, channels: 2, expectedSampleRate: 8000, expectedChannels: 1)),
         "b.wav: 44100 Hz, 2 channels, unlike the first file's 8000 Hz, 1 channel; add --convert to resample", 1),
        (.device(.deviceUnavailable(name: "default", reason: "no sound server")),
         "sound device 'default': cannot open it (no sound server); render to a file instead with --to-file OUT.wav", 1),
        (.input(.noVideoStream(path: "a.mp3", streams: ["audio"])),
         "a.mp3: no video stream (found audio only); to reverse audio, use: reverse-audio convert a.mp3 OUTPUT --reverse", 1),
        (.output(.endlessOutput(path: "p.wav")), "p.wav: a loop never ends; give a length of output or a stop event (--duration sets one)", 1),
        (.setting(.outOfRange(.crf, value: "99", allowed: "0 to 51")), "the CRF must be 0 to 51, not 99 (--crf)", 64),
        (.setting(.outOfRange(.waveformSize, value: "0", allowed: "16 or more")), "the waveform size must be 16 or more, not 0 (--width, --height)", 64),
        (.setting(.outOfRange(.videoContainer, value: "avi", allowed: "mp4")), "the video container must be mp4, not avi", 64),
        (.setting(.unknownChoice(.preset, value: "turbo", choices: ["ultrafast", "medium"])),
         "unknown preset 'turbo'; use one of ultrafast, medium (--preset)", 64),
        (.range(.cannotSeek(path: "a.mp3", frame: 5, reason: "the sample rate changes")),
         "a.mp3: cannot seek to frame 5: the sample rate changes; convert the range first, then resample", 1),
        (.range(.cannotSeek(path: "a.mp3", frame: 5, reason: "no index")), "a.mp3: cannot seek to frame 5: no index", 1),
        (.range(.invalidRange(reason: "give an end or a duration, not both")), "invalid range: give an end or a duration, not both", 64),
        (.output(.containerCannotHold(container: "mp3", codec: "flac", holds: ["mp3"])), "a .mp3 file cannot hold flac; it holds mp3", 64),
        (.output(.videoContainerCannotHold(container: "mp4", codec: "flac", holders: ["mkv"], codecs: ["aac", "alac"])),
         "a .mp4 file cannot hold flac audio; .mkv holds it, and .mp4 holds aac, alac", 64),
        (.input(.fileNotFound(path: "gone.wav")), "gone.wav: no such file", 1),
        (.output(.writeFailed(path: "o.wav", reason: "No space left on device")), "o.wav: writing failed: No space left on device", 1),
    ] as [(ReverseAudioError, String, Int32)])
    func libraryErrors(_ error: ReverseAudioError, _ line: String, _ status: Int32) {
        #expect(ErrorReporting.describe(error) == line)
        #expect(ErrorReporting.exitCode(for: error).rawValue == status)
        #expect(ErrorReporting.isUsageError(error) == (status == 64))
    }

    @Test("the tool's own usage errors exit 64, a cancelled run 130, anything else 1")
    func otherErrors() {
        struct Unexpected: Error, CustomStringConvertible { var description: String { "something odd" } }
        #expect(ErrorReporting.describe(CommandLineError("--at 5: not inside a.wav")) == "--at 5: not inside a.wav")
        #expect(ErrorReporting.exitCode(for: CommandLineError("x")).rawValue == 64)
        #expect(SignalCancellation.receivedSignal == nil, "no signal reached this test process")
        #expect(ErrorReporting.describe(CancellationError()) == "cancelled; no output was left behind")
        #expect(ErrorReporting.exitCode(for: CancellationError()).rawValue == 130)
        #expect(ErrorReporting.describe(Unexpected()) == "something odd")
        #expect(ErrorReporting.exitCode(for: Unexpected()).rawValue == 1)
        #expect(SignalCancellation.status(for: SIGTERM) == 143 && SignalCancellation.status(for: SIGHUP) == 129)
        #expect(SignalCancellation.signalName(SIGINT) == "SIGINT")
    }
}
