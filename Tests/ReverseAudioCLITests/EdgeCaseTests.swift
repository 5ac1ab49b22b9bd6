import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Edges found by reviewing the media core, pipes and output rules: each test fails on the
/// behaviour it guards against.
@Suite(.runsProcesses) struct EdgeCaseTests {
    static let mp3 = Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3")

    /// Runs `script` in sh with the tool as $RA.
    static func shell(_ script: String) async throws -> ProcessResult {
        try await PipeTests.shell(script)
    }

    // MARK: Containers that finish their header at the end, into a pipe

    @Test("AIFF, CAF, M4A and MP3 into a pipe: complete files (spooled), MP3 with its exact gapless length",
          arguments: ["aiff", "caf", "m4a", "mp3"])
    func headerPatchedFormatsIntoAPipe(_ format: String) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("piped.\(format)")
        let result = try await Self.shell("\"$RA\" convert '\(Self.mp3.path)' - --format \(format) | cat > '\(output.path)'")
        #expect(result.status == 0, "\(result.errorText)")
        let expected = try await FFmpegOracle.samples(of: Self.mp3)
        let decoded = try await FFmpegOracle.samples(of: output)
        switch format {
        case "aiff", "caf":
            #expect(decoded == expected, "a PCM file through a pipe holds the decode exactly")
        case "mp3":
            // The LAME tag (written last, at the start of the file) states the encoder's delay and padding.
            #expect(decoded.count == expected.count, "\(decoded.count) samples, expected \(expected.count)")
        default:
            #expect(abs(decoded.count - expected.count) <= 2048 * 2, "AAC: within one frame of padding")
        }
        #expect(directory.contents == ["piped.\(format)"])
    }

    // MARK: Outputs are judged by what is there, not by where

    @Test("a name under /dev that is not one of our descriptors is a plain new file, not a special one")
    func devPrefixIsNotSpecial() async throws {
        // /dev/shm is an ordinary folder of files: nothing is created there; the check only resolves.
        var status = stat()
        try #require(stat("/dev/shm", &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR, "no /dev/shm here")
        let result = try await CLI.run(["convert", Self.mp3.path, "/dev/shm/\(UUID().uuidString)/x.wav"])
        // The folder does not exist: a new file would go there, so the complaint is about the folder.
        expectFailure(result, naming: "x.wav")
        #expect(result.errorText.contains("does not exist"), "\(result.errorText)")
    }

    @Test("a symbolic link to standard output writes into the pipe and is kept")
    func linkToStandardOutput() async throws {
        let directory = try TemporaryDirectory()
        let link = directory.file("so.wav")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/dev/stdout")
        let result = try await Self.shell("\"$RA\" convert '\(Self.mp3.path)' '\(link.path)' -y | ffmpeg -nostdin -v error -i - -f s16le -")
        #expect(result.status == 0, "\(result.errorText)")
        await #expect(FFmpegOracle.int16Array(result.standardOutput) == (try FFmpegOracle.samples(of: Self.mp3)))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "/dev/stdout")
    }

    @Test("a name with a colon is that file, not an FFmpeg protocol")
    func colonInName() async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture("mp3-cbr64-xing-1ch-22050.mp3", into: directory, as: "concat:x.mp3")
        let result = try await CLI.run(["convert", "concat:x.mp3", "http:out.wav"], in: directory.url)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(try await FFmpegOracle.samples(of: directory.file("http:out.wav")) == FFmpegOracle.samples(of: input))
    }

    @Test("a name longer than the filesystem allows fails before any work, and leaves nothing")
    func nameTooLong() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(Self.mp3, directory.file(String(repeating: "n", count: 260) + ".wav"), reverse: true)
        expectFailure(result, naming: "nnnn")
        #expect(result.errorText.contains("at most 255"), "\(result.errorText)")
        #expect(directory.contents.isEmpty)
    }

    // MARK: Standard input for commands that read their input twice

    @Test("- as input for info, trim and waveform (standard input copied once to an unnamed file)")
    func standardInputEverywhere() async throws {
        let directory = try TemporaryDirectory()
        let info = try await Self.shell("cat '\(Self.mp3.path)' | \"$RA\" info --json -")
        #expect(info.status == 0, "\(info.errorText)")
        let frames = try jsonObject(info.outputLines.first ?? "")["frames"] as? Int
        await #expect(frames == (try FFmpegOracle.samples(of: Self.mp3)).count / 2)
        let cut = directory.file("cut.wav")
        let trim = try await Self.shell("cat '\(Self.mp3.path)' | \"$RA\" trim - '\(cut.path)' --start 1000s --end 9000s")
        #expect(trim.status == 0, "\(trim.errorText)")
        #expect(try await FFmpegOracle.samples(of: cut)
                == FFmpegOracle.samples(of: Self.mp3, ["-af", "atrim=start_sample=1000:end_sample=9000"]))
        let picture = directory.file("w.png")
        let waveform = try await Self.shell("cat '\(Self.mp3.path)' | \"$RA\" waveform - '\(picture.path)' --width 64 --height 64")
        #expect(waveform.status == 0, "\(waveform.errorText)")
        #expect(FileManager.default.fileExists(atPath: picture.path))
        let reverse = try await Self.shell("cat '\(Self.mp3.path)' | \"$RA\" reverse - -o '\(directory.url.path)'")
        expectFailure(reverse, naming: "convert - OUT --reverse")
    }

    @Test("an empty pipe is said to be empty, not 'Invalid argument'")
    func emptyPipe() async throws {
        let result = try await Self.shell("\"$RA\" convert - /dev/null < /dev/null; : | \"$RA\" convert - /dev/null")
        #expect(result.status != 0)
        #expect(result.errorText.contains("no audio came through the pipe"), "\(result.errorText)")
    }

    // MARK: Ranges decided by the decode

    @Test("a FLAC whose header understates its length: a range past the header's end is decoded, not cut short")
    func rangeBeyondLyingHeader() async throws {
        let input = Fixtures.url("edge-wrong-length-short.flac")
        let directory = try TemporaryDirectory()
        for (start, end) in [(243, 21909), (17640, 22050)] {
            let output = directory.file("r\(start).wav")
            let result = try await CLI.convert(input, output, reverse: false, ["--start", "\(start)s", "--end", "\(end)s"])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(try await FFmpegOracle.samples(of: output)
                    == FFmpegOracle.samples(of: input, ["-af", "atrim=start_sample=\(start):end_sample=\(end)"]))
        }
    }

    @Test("a range to the end of an MP3 ends where the gapless decode ends; one past it is an error naming the length",
          arguments: [false, true])
    func rangeToTheEnd(_ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("tail.wav")
        let result = try await CLI.convert(Self.mp3, output, reverse: reverse, ["--start", "20000s"])
        #expect(result.status == 0, "\(result.errorText)")
        let filter = "atrim=start_sample=20000" + (reverse ? ",areverse" : "")
        #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: Self.mp3, ["-af", filter]))
        let frames = await (try FFmpegOracle.samples(of: Self.mp3)).count / 2
        let past = try await CLI.convert(Self.mp3, directory.file("past.wav"), reverse: reverse,
                                   ["--start", "20000s", "--end", "\(frames + 1)s"])
        expectFailure(past, naming: "after the end of the file (\(frames) frames")
        #expect(!FileManager.default.fileExists(atPath: directory.file("past.wav").path))
    }

    @Test("Opus and Vorbis in Ogg and Matroska: exact length, and ranges at the right place",
          arguments: [["x.opus", "libopus"], ["x.ogg", "libvorbis"], ["x.mka", "libopus"], ["x.mka", "libvorbis"]])
    func opusAndVorbis(_ made: [String]) async throws {
        let directory = try TemporaryDirectory()
        let input = try await SignalFiles.make(made[0], seconds: 6, in: directory.url, codecArguments: ["-c:a", made[1]])
        let full = try await FFmpegOracle.samples(of: input)
        let info = try await CLI.run(["info", "--json", input.path])
        if let frames = try jsonObject(info.outputLines.first ?? "")["frames"] as? Int {
            #expect(frames == full.count / 2, "\(made): info's frame count")
        }
        let output = directory.file("range.wav")
        let result = try await CLI.convert(input, output, reverse: false, ["--start", "150000s", "--end", "160000s"])
        #expect(result.status == 0, "\(result.errorText)")
        let ours = try await FFmpegOracle.samples(of: output)
        let expected = Array(full[300_000..<320_000])
        #expect(ours.count == expected.count)
        // Opus decoders converge after the pre-roll but not to the bit; a misplaced range differs by thousands.
        let worst = zip(ours, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max
        #expect(worst <= (made[1] == "libopus" ? 8 : 0), "\(made): differs by \(worst)")
    }

    // MARK: Usage errors

    @Test("option values that cannot work are usage errors (exit 64) before any work",
          arguments: [["convert", "a.mp3", "b.wav", "--start", "3", "--end", "2"],
                      ["convert", "a.mp3", "-", "--format", "zzz"],
                      ["convert", "a.mp3", "b.wav", "--duration", "0"],
                      ["waveform", "a.mp3", "b.png", "--width", "0"],
                      ["trim", "a.mp3", "b", "--format", "wma"]])
    func usageErrors(_ arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64, "\(arguments): exit \(result.status) \(result.errorText)")
        #expect(result.errorReports.count == 1, "\(result.errorText)")
    }

    @Test("--verbose reports the block size used, not an impossible one asked for")
    func clampedBlockSize() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(Self.mp3, directory.file("r.wav"), reverse: true, ["--block-frames", "9223372036854775807", "--verbose"])
        #expect(result.status == 0, "\(result.errorText)")
        let frames = await (try FFmpegOracle.samples(of: Self.mp3)).count / 2
        #expect(result.errorText.contains("blocks: \(frames) frames each"), "\(result.errorText)")
    }
}
