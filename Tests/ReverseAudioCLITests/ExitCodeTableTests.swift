import Foundation
import Testing
import TestSupport

/// Exit 64 for anything wrong on the command line that is known before an input is read, with
/// a message that names the valid choices; 1 when an input fails (issue 20).
@Suite(.runsProcesses) struct ExitCodeTableTests {
    /// One bad command line: `IN` is a 0.5 s WAV, `VIDEO` a short H.264 clip, `OUT/` the run's
    /// folder; `names` must all appear in the one error line.
    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let names: [String]
        init(_ arguments: [String], names: [String]) {
            self.arguments = arguments
            self.names = names
        }
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        // convert
        Case(["convert", "IN", "OUT/x.mp3", "--bitrate", "999k"], names: ["--bitrate", "8 to 320 kb/s"]),
        Case(["convert", "IN", "OUT/x.wma"], names: [".wma", ".wav", ".flac", ".mp3", "--format"]),
        Case(["waveform", "IN", "OUT/w.gif"], names: [".gif", ".png", ".jpg", ".svg", ".dat", ".json"]),
        Case(["waveform", "IN", "OUT/w.dat", "--bits", "12"], names: ["--bits", "8", "16"]),
        Case(["waveform", "IN", "OUT/w.png", "--threads", "0"], names: ["--threads", "1 to 256"]),
        Case(["waveform", "IN", "OUT/w.png", "-y", "-n"], names: ["-y", "-n"]),
        Case(["convert", "IN", "OUT/x.wav", "--format", "zzz"], names: ["zzz", "wav", "flac", "mp3"]),
        Case(["convert", "IN", "OUT/x.mp3", "--codec", "flac"], names: ["flac", "mp3"]),
        Case(["convert", "IN", "OUT/x.wav", "--sample-format", "s12"], names: ["s12", "u8", "s16", "f64"]),
        Case(["convert", "IN", "OUT/x.wav", "--channels", "both"], names: ["both", "mix", "first"]),
        Case(["convert", "IN", "OUT/x.wav", "--threads", "-1"], names: ["--threads", "1 to 256"]),
        Case(["convert", "IN", "OUT/x.wav", "--sample-rate", "-8000"], names: ["--sample-rate", "positive"]),
        Case(["convert", "IN", "OUT/x.wav", "--progress", "loud"], names: ["loud", "auto", "bar", "json", "none"]),
        Case(["convert", "IN", "-o", "OUT/"], names: ["folder", "one file"]),
        Case(["convert", "IN", "OUT/x.wav", "-o", "OUT/y.wav"], names: ["-o", "not both"]),
        Case(["convert", "IN", "OUT/x.wav", "-y", "-n"], names: ["-y", "-n"]),
        Case(["convert", "IN", "OUT/x.wav", "--verbose", "--quiet"], names: ["--verbose", "--quiet"]),
        Case(["convert", "IN", "OUT/x.wav", "--start", "3", "--end", "2"], names: ["range"]),
        // reverse
        Case(["reverse", "IN", "-o", "OUT/r", "--jobs", "-1"], names: ["--jobs", "1 to 1024", "-1"]),
        Case(["reverse", "IN", "-o", "OUT/r", "--jobs", "0"], names: ["--jobs", "1 to 1024"]),
        Case(["reverse", "IN", "-o", "IN"], names: ["is a file", "folder"]),
        Case(["reverse", "IN", "-o", "OUT/r", "--codec", "mp3"], names: ["wav", "mp3", "pcm"]),
        Case(["reverse", "IN", "-o", "OUT/r", "--verify", "--format", "mp3"], names: ["--verify", "lossless"]),
        // video
        Case(["video", "VIDEO", "OUT/v.mp4", "--preset", "turbo"], names: ["turbo", "ultrafast", "medium", "placebo"]),
        Case(["video", "VIDEO", "OUT/v.mp4", "--crf", "99"], names: ["--crf", "0 to 51"]),
        Case(["video", "VIDEO", "OUT/v.avi"], names: [".avi", ".mp4", ".mov", ".mkv"]),
        Case(["video", "VIDEO", "OUT/v.mp4", "--memory-limit", "-1"], names: ["--memory-limit", "negative"]),
        Case(["video", "VIDEO", "OUT/v.mp4", "--audio", "loud"], names: ["loud", "reverse", "keep", "none"]),
        // trim, join, compose
        Case(["trim", "IN", "OUT/t.wma"], names: [".wma", ".wav"]),
        Case(["trim", "IN", "OUT/t.wav", "--tail", "1", "--start", "0"], names: ["--tail", "--start"]),
        Case(["join", "IN", "IN", "-o", "OUT/j.wav", "--gap", "-1"], names: ["--gap", "0 or more"]),
        Case(["join", "IN", "IN", "-o", "OUT/j.wma"], names: [".wma", ".wav"]),
        Case(["join", "IN", "IN"], names: ["-o FILE"]),
        Case(["compose", "IN", "-o", "OUT/c.wma"], names: [".wma", ".wav"]),
        // play
        Case(["play", "IN", "--to-file", "OUT/p.wav", "--loop-start", "0.3", "--loop-end", "0.1"], names: ["--loop-start", "--loop-end"]),
        Case(["play", "IN", "--to-file", "OUT/p.wma"], names: [".wma", ".wav", ".mp3"]),
        Case(["play", "IN", "--to-file", "OUT/p.wav", "--events", "1:jump"],
             names: ["1:jump", "reverse", "forward", "toggle", "seek=TIME", "loop=TIME-TIME", "noloop", "pause", "play", "stop"]),
        Case(["play", "IN", "--to-file", "OUT/p.wav", "--device", "null"], names: ["--device", "--to-file"]),
        Case(["play", "IN", "--to-file", "OUT/p.wav", "--realtime"], names: ["--realtime", "--to-file"]),
        // info, list, completion
        Case(["info", "--bogus", "IN"], names: ["--bogus"]),
        Case(["list", "--jobs", "2"], names: ["--jobs"]),
        Case(["completion", "tcsh"], names: ["tcsh", "bash", "zsh", "fish"]),
    ]

    @Test("a bad value exits 64 before any input is read, and the message names the choices", arguments: cases)
    func badValue(_ bad: Case) async throws {
        let folder = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav").path
        let arguments = bad.arguments.map { argument -> String in
            if argument == "IN" { return input }
            if argument == "VIDEO" { return Fixtures.video("h264-25fps-51aac.mov").path }
            if argument.hasPrefix("OUT/") { return folder.url.path + "/" + argument.dropFirst(4) }
            return argument
        }
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "exit \(result.status): \(result.errorText)")
        let line = result.errorReports.first ?? ""
        #expect(result.errorReports.count == 1, "one error line: \(result.errorText)")
        for name in bad.names { #expect(line.contains(name), "the message does not name \(name): \(line)") }
        #expect(result.outputText.isEmpty)
        #expect(folder.contents.isEmpty, "nothing may be written: \(folder.contents)")
    }

    @Test("an input that fails exits 1, a folder that is not there too (never 0)")
    func inputFailures() async throws {
        let folder = try TemporaryDirectory()
        let missing = try await CLI.run(["list", folder.file("nosuchdir").path])
        #expect(missing.status == 1 && missing.errorText.contains("nosuchdir"), "\(missing.status): \(missing.errorText)")
        let bad = try await CLI.run(["convert", Fixtures.url("bad-text.mp3").path, folder.file("x.wav").path])
        #expect(bad.status == 1, "\(bad.errorText)")
    }

    @Test("a value that starts with '-' after an option that takes one is that option's value, not a file name")
    func dashValues() async throws {
        // A word that looks like flags where no option takes it is still refused as a file name.
        let file = try await CLI.run(["convert", "-dash.mp3", "x.wav"])
        #expect(file.status == 64 && file.errorText.contains("./-dash.mp3"), "\(file.errorText)")
        // After a flag (which takes no value) too.
        let afterFlag = try await CLI.run(["convert", "--reverse", "-dash.mp3", "x.wav"])
        #expect(afterFlag.status == 64 && afterFlag.errorText.contains("./-dash.mp3"), "\(afterFlag.errorText)")
        let jobs = try await CLI.run(["reverse", "x", "--jobs", "-1"])
        #expect(jobs.status == 64 && !jobs.errorText.contains("not an option") && jobs.errorText.contains("1 to 1024"), "\(jobs.errorText)")
    }
}
