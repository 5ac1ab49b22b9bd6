import Foundation
import Testing
import TestSupport

/// The command line's edge cases of issue 43, item 7: fades longer than what is heard, a start
/// within half a frame of the end, `file://` URLs and FFmpeg's pipe names as the README gives
/// them, and an AIFF that FFmpeg cannot read from a pipe.
@Suite(.runsProcesses) struct CLIEdgeCaseTests {
    // MARK: Fades that do not fit

    @Test("fades longer than the cut are a one-line error naming the file (exit 1, nothing written), in trim (decoded and MP3 frames copied) and convert")
    func fadesLongerThanTheCut() async throws {
        let directory = try TemporaryDirectory()
        let cut = ["--start", "0.25", "--end", "0.5"]
        let cases: [(arguments: [String], output: String)] = [
            (["trim", Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, directory.file("cut.wav").path] + cut
                + ["--fade-in", "5", "--fade-out", "5"], "cut.wav"),
            (["trim", Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, directory.file("in.wav").path] + cut
                + ["--fade-in", "0.3"], "in.wav"),
            (["trim", Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3").path, directory.file("cut.mp3").path] + cut
                + ["--fade-in", "5", "--fade-out", "5"], "cut.mp3"),
            (["convert", Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, directory.file("reversed.wav").path, "--reverse"] + cut
                + ["--fade-in", "0.2", "--fade-out", "0.1"], "wav-pcm_s16le-1ch-8000.wav"),
        ]
        for (arguments, named) in cases {
            let result = try await CLI.run(arguments)
            expectFailure(result, naming: named)
            #expect(result.status == 1, "\(arguments): exit \(result.status)")
            #expect(result.errorText.contains("longer than the 0.250 s"), "\(arguments): \(result.errorText)")
            #expect(directory.contents.isEmpty, "\(arguments) left \(directory.contents)")
        }
        // Fades that just meet are fine, and shape the cut as sox's do.
        let fitting = directory.file("fitting.wav")
        let result = try await CLI.run(["trim", Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, fitting.path] + cut
                                 + ["--fade-in", "0.125", "--fade-out", "0.125", "--fade-shape", "t"])
        try #require(result.status == 0, "\(result.errorText)")
        let samples = try await FFmpegOracle.samples(of: fitting)
        #expect(samples.count == 2000 && samples.contains { abs(Int($0)) > 1000 }, "\(samples.count) samples, peak \(samples.map { abs(Int($0)) }.max() ?? 0)")
    }

    // MARK: A start within half a frame of the end

    @Test("a start before the end by less than half a frame is the last frame, not the end; a time on the frame grid stays on it")
    func startNearTheEnd() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")   // 0.5 s: 22050 frames
        let decoded = try await FFmpegOracle.samples(of: input)
        try #require(decoded.count == 2 * 22050)
        // 0.49999 s is frame 22049.56: inside the last frame.
        let last = directory.file("last.wav")
        let result = try await CLI.run(["trim", input.path, last.path, "--start", "0.49999"])
        try #require(result.status == 0, "\(result.errorText)")
        #expect(try await FFmpegOracle.samples(of: last) == Array(decoded.suffix(2)))
        // 0.29 × 44100 is 12788.999…98 in binary arithmetic: still frame 12789, as 12789s.
        let seconds = directory.file("seconds.wav")
        let frames = directory.file("frames.wav")
        #expect(try await CLI.run(["trim", input.path, seconds.path, "--start", "0.29"]).status == 0)
        #expect(try await CLI.run(["trim", input.path, frames.path, "--start", "12789s"]).status == 0)
        #expect(try await FFmpegOracle.samples(of: seconds) == FFmpegOracle.samples(of: frames))
        #expect(try await FFmpegOracle.samples(of: seconds) == Array(decoded.dropFirst(2 * 12789)))
        // At or past the end it is still refused.
        for start in ["0.5", "0.50001"] {
            let past = try await CLI.run(["trim", input.path, directory.file("past.wav").path, "--start", start])
            expectFailure(past, naming: "wav-pcm_s16le-2ch-44100.wav")
            #expect(past.errorText.contains("after the end of the file"), "\(start): \(past.errorText)")
        }
    }

    // MARK: file:// URLs and FFmpeg's pipe names

    @Test("file:///PATH is the file it names (% escapes decoded); a file URL of another host, with ? or #, or without a path is a usage error")
    func fileURLs() async throws {
        let directory = try TemporaryDirectory()
        let copy = try copyFixture("flac-s16-1ch-8000.flac", into: directory, as: "a b#1.flac")
        let byName = try await CLI.run(["info", "--json", copy.path])
        try #require(byName.status == 0, "\(byName.errorText)")
        let escaped = "file://" + directory.url.path + "/a%20b%231.flac"
        for url in [escaped, "file://localhost" + directory.url.path + "/a%20b%231.flac"] {
            let result = try await CLI.run(["info", "--json", url])
            #expect(result.status == 0, "\(url): \(result.errorText)")
            #expect(try jsonObject(result.outputText)["frames"] as? Int == jsonObject(byName.outputText)["frames"] as? Int, "\(url)")
        }
        for url in ["file://elsewhere" + copy.path, escaped.replacingOccurrences(of: "%23", with: "#"), escaped + "?x=1", "file://"] {
            await expectUsageError(try CLI.run(["info", url]), naming: url)
        }
    }

    @Test("pipe:0 and pipe: read standard input and pipe:1 writes standard output, as - does; convert's reference page says so")
    func pipeNames() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")
        let expected = try await FFmpegOracle.samples(of: input)
        for (inputName, outputName) in [("-", "-"), ("pipe:0", "pipe:1"), ("pipe:", "pipe:")] {
            // Through real pipes on both sides: cat's into the tool, the tool's into cat's.
            let written = directory.file("piped.wav")
            let result = try await ProcessRunner.run("/bin/bash", ["-c", "cat \"$1\" | \"$0\" convert \"$2\" \"$3\" --format wav | cat > \"$4\"",
                                                             BuiltProducts.reverseAudio.path, input.path, inputName, outputName, written.path])
            try #require(result.status == 0 && result.errorReports.isEmpty, "\(inputName) → \(outputName): \(result.errorText)")
            #expect(try await FFmpegOracle.samples(of: written) == expected, "\(inputName) → \(outputName)")
        }
        let page = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/reference/convert.md"), encoding: .utf8)
        let pipes = try #require(page.components(separatedBy: "# Pipes:").dropFirst().first?.components(separatedBy: "\n\n").first)
        #expect(pipes.contains("pipe:0") && pipes.contains("pipe:1"), "docs/reference/convert.md's pipe paragraph: \(pipes)")
        let urls = try #require(page.components(separatedBy: "# URLs:").dropFirst().first?.components(separatedBy: "\n\n").first)
        #expect(urls.contains("file:///PATH") && !urls.contains("pipe: are file names"), "docs/reference/convert.md's URL paragraph: \(urls)")
    }

    // MARK: An AIFF a pipe cannot carry

    @Test("an AIFF whose COMM chunk follows its sound data, piped to convert, is an error that says why (not \"Operation not permitted\"); by name it reads as ffmpeg reads it")
    func aiffCommAfterSoundThroughAPipe() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("edge-aiff-comm-after-sound.aif")
        let output = directory.file("out.wav")
        let piped = try await ProcessRunner.run("/bin/bash", ["-c", "cat \"$1\" | \"$0\" convert - \"$2\"",
                                                        BuiltProducts.reverseAudio.path, input.path, output.path])
        expectFailure(piped, naming: "/dev/stdin")
        #expect(piped.status == 1)
        #expect(!piped.errorText.contains("Operation not permitted") && piped.errorText.contains("COMM chunk")
                && piped.errorText.contains("give the file by name"), "\(piped.errorText)")
        #expect(directory.contents.isEmpty, "left \(directory.contents)")
        let named = try await CLI.run(["convert", input.path, output.path])
        try #require(named.status == 0, "\(named.errorText)")
        #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: input))
        #expect(try await FFmpegOracle.samples(of: input) == FFmpegOracle.samples(of: Fixtures.url("aiff-pcm_s16be-1ch-22050.aif")))
    }
}
