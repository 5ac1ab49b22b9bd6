import Foundation
import Testing
import TestSupport

/// What the tool says to people (issue 28, items 16 to 19): FFmpeg's own log only as warnings
/// of ours, one `--json` schema, ffmpeg's habits answered with our options, and no silent
/// narrowing or mixing. Each test fails on the behaviour it replaces.
@Suite(.runsProcesses) struct HabitsAndMessagesTests {
    // MARK: 16. FFmpeg's log

    @Test("trim into .m4a --verbose: no false 'extension is not .m4a' from FFmpeg, no raw FFmpeg line",
          arguments: [["--start", "0.2", "--duration", "0.5"], ["--start", "0.2", "--duration", "0.5", "--reencode"]])
    func noFalseMuxerWarning(_ options: [String]) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("c.m4a")
        let result = try await CLI.run(["trim", Fixtures.url("m4a-aac-2ch-44100.m4a").path, output.path, "--verbose"] + options)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(!result.errorText.contains("extension is not"), "\(result.errorText)")
        #expect(!result.errorLines.contains { $0.hasPrefix("[") }, "FFmpeg printed on its own: \(result.errorText)")
    }

    @Test("FFmpeg's warnings under --verbose are lines of ours: component named, no pointer")
    func ffmpegWarningsAreOurs() async throws {
        let directory = try TemporaryDirectory()
        // A WAV whose header promises more than the file holds: FFmpeg's demuxer says so.
        let result = try await CLI.run(["convert", Fixtures.url("bad-truncated-30pct.mp3").path, directory.file("o.wav").path, "--verbose"])
        let ffmpegLines = result.errorLines.filter { $0.contains("FFmpeg: ") }
        #expect(!ffmpegLines.isEmpty, "no FFmpeg warning reached the user: \(result.errorText)")
        for line in ffmpegLines {
            #expect(line.hasPrefix("reverse-audio: warning: FFmpeg: "), "\(line)")
            #expect(!line.contains(" @ 0x"), "\(line)")
        }
        // Without --verbose, FFmpeg says nothing.
        let quiet = try await CLI.run(["convert", Fixtures.url("bad-truncated-30pct.mp3").path, directory.file("q.wav").path])
        #expect(!quiet.errorText.contains("FFmpeg: ") && !quiet.errorLines.contains { $0.hasPrefix("[") }, "\(quiet.errorText)")
    }

    // MARK: 17. One --json schema

    @Test("reverse --json: a rerun's skipped lines name the same output as the done ones")
    func skippedNamesTheSameOutput() async throws {
        let directory = try TemporaryDirectory()
        _ = try copyFixture("wav-pcm_s16le-2ch-44100.wav", into: directory, as: "x.wav")
        let arguments = ["reverse", "x.wav", "-o", "Reversed2", "--json"]
        let first = try await CLI.run(arguments, in: directory.url)
        let second = try await CLI.run(arguments, in: directory.url)
        #expect(first.status == 0 && second.status == 0, "\(first.errorText)\(second.errorText)")
        let done = try Self.object(first.outputText)
        let skipped = try Self.object(second.outputText)
        #expect(done["status"] as? String == "done")
        #expect(skipped["status"] as? String == "skipped")
        #expect(done["output"] as? String == "Reversed2/x-REVERSED.wav")
        #expect(skipped["output"] as? String == done["output"] as? String)
        #expect(skipped["input"] as? String == done["input"] as? String)
    }

    @Test("a failing convert --json prints a failed line, as a batch does", arguments: ["convert", "trim"])
    func failedLine(_ command: String) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("o.wav")
        let result = try await CLI.run([command, Fixtures.url("bad-text.mp3").path, output.path, "--json"])
        #expect(result.status != 0)
        let object = try Self.object(result.outputText)
        #expect(object["status"] as? String == "failed")
        #expect(object["kind"] as? String == "notMedia")
        #expect((object["error"] as? String)?.contains("bad-text.mp3") == true)
        #expect(object["output"] as? String == output.path)
        #expect(result.errorText.contains("bad-text.mp3"), "the error is still on standard error")
    }

    static func object(_ text: String) throws -> [String: Any] {
        let lines = text.split(separator: "\n")
        try #require(lines.count == 1, "one JSON line, got: \(text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    }

    // MARK: 18. Habits from ffmpeg and SoX

    @Test("ffmpeg's options are answered with ours",
          arguments: [(["trim", "IN", "OUT", "-ss", "10"], "--start"), (["convert", "-i", "IN", "OUT"], "without -i"),
                      (["convert", "IN", "OUT", "-ar", "48000"], "--sample-rate"), (["trim", "IN", "OUT", "-t", "3"], "--duration")])
    func peerOptions(_ arguments: [String], _ advice: String) async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav").path
        let result = try await CLI.run(arguments.map { $0 == "IN" ? input : $0 == "OUT" ? directory.file("o.wav").path : $0 })
        #expect(result.status == 64, "\(result.errorText)")
        #expect(result.errorText.contains(advice), "\(result.errorText)")
        #expect(!result.errorText.contains("to name a file that starts with"), "\(result.errorText)")
        #expect(directory.contents.isEmpty)
    }

    @Test("reverse IN OUT, as SoX reads: a usage error naming convert --reverse, nothing written")
    func reverseTwoFiles() async throws {
        let directory = try TemporaryDirectory()
        _ = try copyFixture("mp3-cbr128-xing-2ch-44100.mp3", into: directory, as: "song.mp3")
        let result = try await CLI.run(["reverse", "song.mp3", "song-rev.wav"], in: directory.url)
        #expect(result.status == 64, "\(result.errorText)")
        #expect(result.errorText.contains("reverse-audio convert song.mp3 song-rev.wav --reverse"), "\(result.errorText)")
        #expect(directory.contents == ["song.mp3"])
    }

    // MARK: 19. No silent narrowing or mixing

    @Test("convert 24-bit into FLAC at the default 16 bits says so and names --sample-format native")
    func narrowingSaid() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s24le-2ch-48000.wav").path
        let narrowed = try await CLI.run(["convert", input, directory.file("a.flac").path])
        #expect(narrowed.status == 0)
        #expect(narrowed.errorText.contains("24-bit") && narrowed.errorText.contains("--sample-format native"), "\(narrowed.errorText)")
        let asked = try await CLI.run(["convert", input, directory.file("b.flac").path, "--sample-format", "s16"])
        #expect(!asked.errorText.contains("--sample-format native"), "\(asked.errorText)")
        let quiet = try await CLI.run(["convert", input, directory.file("c.flac").path, "-q"])
        #expect(quiet.errorText.isEmpty, "\(quiet.errorText)")
        let lossy = try await CLI.run(["convert", input, directory.file("d.mp3").path])
        #expect(!lossy.errorText.contains("--sample-format native"), "\(lossy.errorText)")
        let sixteen = try await CLI.run(["convert", Fixtures.url("wav-pcm_s16le-2ch-44100.wav").path, directory.file("e.flac").path])
        #expect(!sixteen.errorText.contains("--sample-format native"), "\(sixteen.errorText)")
    }

    @Test("join --convert says it mixed a stereo input down to mono")
    func mixdownSaid() async throws {
        let directory = try TemporaryDirectory()
        let mono = Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path
        let stereo = Fixtures.url("wav-pcm_s16le-2ch-44100.wav").path
        let result = try await CLI.run(["join", mono, stereo, "-o", directory.file("j.wav").path, "--convert"])
        #expect(result.status == 0, "\(result.errorText)")
        let line = result.errorLines.first { $0.contains("wav-pcm_s16le-2ch-44100.wav") } ?? ""
        #expect(line.contains("warning") && line.contains("mixed to 1") && line.contains("44100 → 8000"), "\(result.errorText)")
    }

    @Test("the re-encoding warning names the inputs in the order given")
    func inputsInOrder() async throws {
        let directory = try TemporaryDirectory()
        let second = "mp3-vbrq4-xing-2ch-44100.mp3", first = "mp3-cbr128-xing-2ch-44100.mp3"
        let result = try await CLI.run(["join", Fixtures.url(second).path, Fixtures.url(first).path, "-o", directory.file("j.mp3").path])
        #expect(result.status == 0, "\(result.errorText)")
        let line = result.errorLines.first { $0.contains("generation loss") } ?? ""
        let a = try #require(line.range(of: second), "\(result.errorText)")
        let b = try #require(line.range(of: first), "\(result.errorText)")
        #expect(a.lowerBound < b.lowerBound, "\(line)")
    }
}

/// Issue 28, item 14: a big picture in the tags is not held, or decoded, once per reader.
@Suite(.runsProcesses) struct CoverArtMemoryTests {
    @Test("a 2-thread reversal of an MP3 with a big cover picture takes no more memory than a 1-thread one, and equals areverse")
    func coverArtOncePerFile() async throws {
        let directory = try TemporaryDirectory()
        let picture = directory.file("big.png")
        let audio = directory.file("base.mp3")
        let input = directory.file("cover.mp3")
        for arguments in [["-f", "lavfi", "-i", "nullsrc=s=2000x2500,geq=random(1)*255:128:128", "-frames:v", "1", "-pix_fmt", "rgb24", picture.path],
                          ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=20", "-ac", "2", "-b:a", "128k", audio.path],
                          ["-i", audio.path, "-i", picture.path, "-map", "0", "-map", "1", "-c", "copy", "-id3v2_version", "3",
                           "-disposition:v", "attached_pic", input.path]] {
            let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
            try #require(made.status == 0, "\(made.errorText)")
        }
        func peak(threads: Int) async throws -> Int {
            let output = directory.file("out\(threads).wav")
            let result = try await ProcessRunner.run("/usr/bin/time", ["-f", "peak-kib=%M", BuiltProducts.reverseAudio.path, "convert", input.path,
                                                                output.path, "--reverse", "--threads", "\(threads)", "--verbose"])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(result.errorText.contains("threads: \(threads) decoding"), "\(result.errorText)")
            #expect(!result.errorText.contains("FFmpeg: "), "a second reader's probe is quiet: \(result.errorText)")
            #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: input, ["-af", "areverse"]))
            let line = result.errorText.split(separator: "\n").last { $0.hasPrefix("peak-kib=") }
            return try #require(line.flatMap { Int($0.dropFirst(9)) }, "\(result.errorText)")
        }
        let one = try await peak(threads: 1)
        let two = try await peak(threads: 2)
        #expect(two <= one + 8 * 1024, "2 threads: \(two / 1024) MiB, 1 thread: \(one / 1024) MiB")
        // The first reader still describes the picture.
        #expect(try await CLI.run(["info", input.path]).outputText.contains("png 2000"), "info names the cover picture")
    }
}

/// MP3 inside a WAV file: FFmpeg's WAV demuxer cannot seek in it (a corpus file made by another
/// tool showed the class). Every command reads ranges from the start and agrees with the oracle.
@Suite(.runsProcesses) struct UnseekableContainerTests {
    static let input = Fixtures.url("edge-wav-mp3-2ch-44100.wav")

    @Test("ranges inside the codec's pre-roll and past it, forwards and reversed, equal atrim",
          arguments: [(1000, 3000), (30000, 50000)], [false, true])
    func ranges(_ range: (Int, Int), _ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("r.wav")
        let result = try await CLI.convert(Self.input, output, reverse: reverse, ["--start", "\(range.0)s", "--end", "\(range.1)s"])
        #expect(result.status == 0, "\(result.errorText)")
        let filter = "atrim=start_sample=\(range.0):end_sample=\(range.1)" + (reverse ? ",areverse" : "")
        #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: Self.input, ["-af", filter]))
    }

    @Test("trim into WAV, trim --tail, waveform of a range and play --reverse agree with the oracle")
    func otherCommands() async throws {
        let directory = try TemporaryDirectory()
        let cut = directory.file("cut.wav")
        let trim = try await CLI.run(["trim", Self.input.path, cut.path, "--start", "1000s", "--end", "3000s"])
        #expect(trim.status == 0, "\(trim.errorText)")
        #expect(try await FFmpegOracle.samples(of: cut) == FFmpegOracle.samples(of: Self.input, ["-af", "atrim=start_sample=1000:end_sample=3000"]))
        let waveform = try await CLI.run(["waveform", Self.input.path, directory.file("w.png").path, "--start", "1000s", "--end", "3000s"])
        #expect(waveform.status == 0 && (waveform.outputText + waveform.errorText).contains("2000 frames"),
                "\(waveform.outputText)\(waveform.errorText)")
        let played = directory.file("p.wav")
        let play = try await CLI.run(["play", Self.input.path, "--reverse", "--to-file", played.path])
        #expect(play.status == 0, "\(play.errorText)")
        #expect(try await FFmpegOracle.samples(of: played) == FFmpegOracle.reversedSamples(of: Self.input))
        let tail = directory.file("tail.wav")
        #expect(try await CLI.run(["trim", Self.input.path, tail.path, "--tail", "0.5"]).status == 0)
        let total = try await FFmpegOracle.samples(of: Self.input).count / 2
        #expect(try await FFmpegOracle.samples(of: tail) == FFmpegOracle.samples(of: Self.input, ["-af", "atrim=start_sample=\(total - 22050)"]))
    }
}
