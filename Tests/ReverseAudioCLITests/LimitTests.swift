import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, items 1, 2, 5, 7, 8 and 9: hostile values, outputs that are inputs, pictures too
/// big, plans with odd names, permissions.
@Suite(.runsProcesses) struct LimitTests {
    static let input = "wav-pcm_s16le-1ch-8000.wav"

    // MARK: 1. Time values past the limits

    /// Every option and plan or event time that takes a time, given 1e15 s (or a silence past
    /// 24 hours): `IN`, `OUT`, `PLAN` stand for files in the run's folder.
    static let hostile: [[String]] = [
        ["convert", "IN", "OUT", "--start", "1e15"], ["convert", "IN", "OUT", "--end", "1e15"],
        ["convert", "IN", "OUT", "--duration", "1e15"], ["convert", "IN", "OUT", "--start", "999999999999999999999s"],
        ["reverse", "IN", "-o", "DIR", "--duration", "1e15"],
        ["trim", "IN", "OUT", "--start", "1e15"], ["trim", "IN", "OUT", "--end", "1e15"], ["trim", "IN", "OUT", "--duration", "1e15"],
        ["trim", "IN", "OUT", "--tail", "1e15"], ["trim", "IN", "OUT", "--pad-start", "1e15"], ["trim", "IN", "OUT", "--pad-end", "1e15"],
        ["trim", "IN", "OUT", "--pad-end", "100000000"], ["trim", "IN", "OUT", "--pad-end", "25:00:00"],
        ["join", "IN", "IN", "-o", "OUT", "--gap", "1e15"], ["join", "IN", "IN", "-o", "OUT", "--gap", "1e12"],
        ["compose", "PLAN:silence 1e15", "-o", "OUT"], ["compose", "PLAN:silence 86401", "-o", "OUT"],
        ["compose", "PLAN:in.wav 0 1e15", "-o", "OUT"],
        ["play", "IN", "--to-file", "OUT", "--from", "1e15"], ["play", "IN", "--to-file", "OUT", "--loop-start", "0", "--loop-end", "1e15"],
        ["play", "IN", "--to-file", "OUT", "--duration", "1e15"], ["play", "IN", "--to-file", "OUT", "--events", "1:seek=1e15"],
        ["play", "IN", "--to-file", "OUT", "--events", "1e15:stop"], ["play", "IN", "--to-file", "OUT", "--events", "1:loop=0-1e15"],
        ["waveform", "IN", "PNG", "--start", "1e15"], ["waveform", "IN", "PNG", "--duration", "1e15"],
    ]

    @Test("a time past the limits is a usage error (64) naming the limit, and nothing is written", arguments: hostile)
    func hostileTime(_ template: [String]) async throws {
        let directory = try TemporaryDirectory()
        try copyFixture(Self.input, into: directory, as: "in.wav")
        var arguments: [String] = []
        for word in template {
            switch word {
            case "IN": arguments.append(directory.file("in.wav").path)
            case "OUT": arguments.append(directory.file("out.wav").path)
            case "PNG": arguments.append(directory.file("out.png").path)
            case "DIR": arguments.append(directory.file("reversed").path)
            case let plan where plan.hasPrefix("PLAN:"):
                try (String(plan.dropFirst(5)) + "\n").write(to: directory.file("plan.txt"), atomically: true, encoding: .utf8)
                arguments.append(directory.file("plan.txt").path)
            default: arguments.append(word)
            }
        }
        let before = directory.contents
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(template): exit \(result.status): \(result.errorText)")
        #expect(result.errorReports.count == 1, "\(template): \(result.errorText)")
        let named = ["1000000 s", "86400 s", "1000000000000s", "24 hours"].contains { result.errorText.contains($0) }
        #expect(named, "\(template): the limit is not named: \(result.errorText)")
        #expect(!result.errorText.contains("Fatal error") && !result.errorText.contains("cannot be converted"), "\(result.errorText)")
        #expect(directory.contents == before, "\(template): left \(directory.contents)")
    }

    @Test("a silence given in frames is checked at the output's rate: 24 hours at 8000 Hz")
    func silenceInFrames() async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture(Self.input, into: directory, as: "in.wav")
        let ok = try await CLI.run(["trim", input.path, directory.file("ok.wav").path, "--duration", "0.1", "--pad-end", "800s"])
        #expect(ok.status == 0, "\(ok.errorText)")
        let refused = try await CLI.run(["trim", input.path, directory.file("no.wav").path, "--pad-end", "691200001s"])
        #expect(refused.status == 64, "\(refused.errorText)")
        #expect(refused.errorText.contains("24 hours") && refused.errorText.contains("691200000 frames at 8000 Hz"), "\(refused.errorText)")
        #expect(directory.contents == ["in.wav", "ok.wav"])
    }

    @Test("numbers that cannot be held are usage errors, never a trap",
          arguments: [["convert", "IN", "OUT", "--bitrate", "1e300"], ["convert", "IN", "OUT.mp3", "--bitrate", "nan"],
                      ["convert", "IN", "OUT", "--sample-rate", "99999999999999999999"], ["reverse", "IN", "--jobs", "9223372036854775807"],
                      ["video", "IN", "OUT.mp4", "--crf", "nan"], ["video", "IN", "OUT.mp4", "--memory-limit", "9223372036854775807"],
                      ["waveform", "IN", "PNG", "--width", "99999999999999999999"], ["convert", "IN", "OUT", "--start", "inf"],
                      ["convert", "IN", "OUT", "--start", "0x10"], ["convert", "IN", "OUT", "--start", "-1"]])
    func hostileNumbers(_ template: [String]) async throws {
        let directory = try TemporaryDirectory()
        try copyFixture(Self.input, into: directory, as: "in.wav")
        let arguments = template.map {
            $0 == "IN" ? directory.file("in.wav").path : $0 == "PNG" ? directory.file("o.png").path
                : $0.hasPrefix("OUT") ? directory.file("o" + $0.dropFirst(3) + ($0 == "OUT" ? ".wav" : "")).path : $0
        }
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(template): exit \(result.status): \(result.errorText)")
        #expect(directory.contents == ["in.wav"])
    }

    // MARK: 2. The space a long output needs, said before writing

    @Test("a padded WAV bigger than the free space is refused up front, naming both sizes")
    func freeSpace() async throws {
        let directory = try TemporaryDirectory()
        // 8 channels of 32-bit at 384 kHz: 24 hours of silence would be 2.6 TB.
        let input = directory.file("wide.wav")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=384000:cl=7.1",
                                                   "-t", "0.01", "-c:a", "pcm_s32le", input.path])
        try #require(made.status == 0, "\(made.errorText)")
        let result = try await CLI.run(["trim", input.path, directory.file("out.wav").path, "--pad-end", "86000"])
        #expect(result.status == 1, "\(result.errorText)")
        #expect(result.errorText.contains("TB") && result.errorText.contains("free"), "\(result.errorText)")
        #expect(directory.contents == ["wide.wav"])
        let aiff = try await CLI.run(["trim", input.path, directory.file("out.aiff").path, "--pad-end", "400"])
        #expect(aiff.status == 64 && aiff.errorText.contains("4 GiB"), "\(aiff.errorText)")
        #expect(directory.contents == ["wide.wav"])
    }

    // MARK: 5. An output is never an input, through any link

    @Test("compose's output may not be its plan: directly, through a symbolic link or a hard link")
    func planIsNotOutput() async throws {
        let directory = try TemporaryDirectory()
        try copyFixture(Self.input, into: directory, as: "in.wav")
        let plan = directory.file("plan.txt")
        let text = "in.wav 0 0.5\n"
        try text.write(to: plan, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.wav").path, withDestinationPath: "plan.txt")
        try #require(link(plan.path, directory.file("hard.wav").path) == 0)
        for output in ["plan.txt", "link.wav", "hard.wav"] {
            let result = try await CLI.run(["compose", plan.path, "-o", directory.file(output).path, "-y", "--format", "wav"])
            #expect(result.status != 0, "\(output): \(result.errorText)")
            #expect(result.errorText.contains("input"), "\(output): \(result.errorText)")
            #expect(try String(contentsOf: plan, encoding: .utf8) == text, "\(output): the plan was replaced")
        }
        #expect(directory.contents == ["hard.wav", "in.wav", "link.wav", "plan.txt"])
    }

    // MARK: 7. Picture sizes

    @Test("waveform: the largest picture works within the stated memory; larger is a usage error naming the limit")
    func waveformSizes() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url(Self.input).path
        let refused = try await CLI.run(["waveform", input, directory.file("big.png").path, "--width", "16384", "--height", "16384"])
        #expect(refused.status == 64 && refused.errorText.contains("4096"), "\(refused.errorText)")
        let output = directory.file("max.png")
        let result = try await ProcessRunner.run("/usr/bin/time", ["-f", "peak-kib=%M", BuiltProducts.reverseAudio.path,
                                                            "waveform", input, output.path, "--width", "16384", "--height", "4096"])
        #expect(result.status == 0, "\(result.errorText)")
        let peak = result.errorLines.last { $0.hasPrefix("peak-kib=") }.flatMap { Int($0.dropFirst(9)) }
        let kib = try #require(peak, "no peak from /usr/bin/time: \(result.errorText)")
        #expect(kib < 1024 * 1024, "peak RSS \(kib / 1024) MiB: the help promises under 1 GiB")
        let size = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", output.path])
        #expect(size.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "16384,4096", "\(size.outputText)")
        #expect(directory.contents == ["max.png"])
    }

    // MARK: 8. Plans: quotes, `#`, control characters

    @Test("a quoted plan name may hold # and a doubled quote; a NUL is an error naming the line")
    func planNames() async throws {
        let directory = try TemporaryDirectory()
        try copyFixture(Self.input, into: directory, as: "take #1.wav")
        try copyFixture(Self.input, into: directory, as: "say \"hi\".wav")
        try "\"take #1.wav\" 0 0.25   # a comment\n\"say \"\"hi\"\".wav\" 0.25 0.5\r\n".write(
            to: directory.file("plan.txt"), atomically: true, encoding: .utf8)
        let result = try await CLI.run(["compose", directory.file("plan.txt").path, "-o", directory.file("out.wav").path])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(try await FFmpegOracle.samples(of: directory.file("out.wav")).count == 4000)

        try Data("\"take #1.wav\" 0 0.25\n\"take #1.wav\" 1\0junk\n".utf8).write(to: directory.file("nul.txt"))
        let nul = try await CLI.run(["compose", directory.file("nul.txt").path, "-o", directory.file("nul.wav").path])
        #expect(nul.status == 64, "\(nul.errorText)")
        #expect(nul.errorText.contains("line 2") && nul.errorText.contains("\\0"), "\(nul.errorText)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("nul.wav").path))
        try Data("\"unclosed.wav 0 1\n".utf8).write(to: directory.file("open.txt"))
        let open = try await CLI.run(["compose", directory.file("open.txt").path, "-o", directory.file("open.wav").path])
        #expect(open.status == 64 && open.errorText.contains("line 1") && open.errorText.contains("quote"), "\(open.errorText)")
    }

    // MARK: 9. Resampling to 1 Hz; -y and permissions

    @Test("convert --sample-rate 1 gives ffmpeg's 0 frames and calls nothing truncated")
    func sampleRateOne() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["convert", Fixtures.url(Self.input).path, directory.file("out.wav").path, "--sample-rate", "1"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(!result.errorText.contains("truncated"), "\(result.errorText)")
        #expect(try await FFmpegOracle.samples(of: directory.file("out.wav")).count
                == FFmpegOracle.samples(of: Fixtures.url(Self.input), ["-ar", "1"]).count)
    }

    /// The unprivileged user the permission test runs as: nobody, through setpriv.
    static let canDropPrivileges = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test("-y run by a user who may write the folder but not the file leaves the file alone, as cp does",
          .enabled(if: canDropPrivileges, "needs root to run the tool as nobody (setpriv)"))
    func overwriteNeedsWritePermission() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let input = folder.appendingPathComponent("in.wav")
        try FileManager.default.copyItem(at: Fixtures.url(Self.input), to: input)
        let theirs = folder.appendingPathComponent("theirs.wav")
        try Data("someone else's".utf8).write(to: theirs)
        chmod(theirs.path, 0o444)
        chmod(input.path, 0o644)
        // nobody may write the folder (and reach it), not the root-owned read-only file.
        chown(folder.path, 65534, 65534)
        chmod(directory.url.path, 0o755)
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", BuiltProducts.reverseAudio.path]
        let copied = try await ProcessRunner.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "cp", input.path, theirs.path])
        #expect(copied.status != 0, "cp itself would refuse: \(copied.errorText)")
        let result = try await ProcessRunner.run("/usr/bin/setpriv", nobody + ["convert", input.path, theirs.path, "-y"])
        #expect(result.status == 1, "\(result.errorText)")
        #expect(result.errorText.contains("permission denied") && result.errorText.contains("theirs.wav"), "\(result.errorText)")
        #expect(try Data(contentsOf: theirs) == Data("someone else's".utf8))
        #expect(folderContents(folder) == ["in.wav", "theirs.wav"])
        // A file nobody may write is replaced as before.
        let own = folder.appendingPathComponent("own.wav")
        let first = try await ProcessRunner.run("/usr/bin/setpriv", nobody + ["convert", input.path, own.path])
        #expect(first.status == 0, "\(first.errorText)")
        let again = try await ProcessRunner.run("/usr/bin/setpriv", nobody + ["convert", input.path, own.path, "-y", "--reverse"])
        #expect(again.status == 0, "\(again.errorText)")
    }
}
