import Foundation
import Testing
import TestSupport

/// `reverse-audio video`: every fixture case against the ffmpeg CLI as the oracle.
@Suite(.runsProcesses) struct VideoCommandTests {
    /// `video INPUT OUTPUT OPTIONS...`
    static func run(_ input: URL, _ output: URL, _ options: [String] = []) async throws -> ProcessResult {
        try await CLI.run(["video", input.path, output.path, "--progress", "none"] + options)
    }

    /// Output times within this of the expected ones (the output's time base rounds: 1 ms in Matroska).
    static let tolerance = 0.0011

    static func expectTimes(_ actual: [Double], _ expected: [Double], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual.count == expected.count, "\(actual.count) pictures, expected \(expected.count)", sourceLocation: sourceLocation)
        let origin = actual.first ?? 0
        let worst = zip(actual, expected).map { abs(($0 - origin) - $1) }.max() ?? 0
        #expect(worst <= tolerance, "times differ by up to \(worst) s: \(actual.prefix(8)) vs \(expected.prefix(8))",
                sourceLocation: sourceLocation)
    }

    @Test("--lossless: the output's pictures are the input's in reverse order, each lasting as long as the one it shows",
          arguments: [("h264-30fps-bframes-aac.mp4", "mp4"), ("h264-25fps-51aac.mov", "mov"), ("h264-vfr-pcm.mkv", "mkv"),
                      ("h264-gop250-noaudio.mp4", "mkv"), ("h264-opengop.mkv", "mp4"), ("h264-rotate90.mp4", "mov"),
                      ("h264-editlist.mp4", "mp4"),
                      // What browsers record: live WebM (no cues, no duration) and fragmented MP4.
                      ("vp8-live-opus.webm", "mp4"), ("vp9-live-opus.webm", "mkv"), ("h264-fragmented-aac.mp4", "mov")])
    func losslessReversal(_ fixture: String, _ container: String) async throws {
        let input = Fixtures.video(fixture)
        let directory = try TemporaryDirectory()
        let output = directory.file("reversed.\(container)")
        let result = try await Self.run(input, output, ["--lossless"])
        #expect(result.status == 0, "\(result.errorText)")
        let original = try await VideoOracle.pictures(of: input)
        let reversed = try await VideoOracle.pictures(of: output)
        #expect(original.count > 20)
        #expect(reversed.map(\.md5) == original.map(\.md5).reversed(), "pictures not the input's reversed")
        Self.expectTimes(reversed.map(\.time),
                         VideoOracle.reversedTimes(original.map(\.time), lastDuration: original.last?.duration ?? 0))
        #expect(result.outputText.contains("\(original.count) frames"), "\(result.outputText)")
        #expect(directory.contents == ["reversed.\(container)"], "left behind: \(directory.contents)")
    }

    @Test("--boomerang: 2n−1 pictures, forwards then backwards, the turn picture once, times continuing",
          arguments: ["h264-30fps-bframes-aac.mp4", "h264-vfr-pcm.mkv", "h264-opengop.mkv",
                      "vp8-live-opus.webm", "vp9-live-opus.webm", "h264-fragmented-aac.mp4"])
    func boomerang(_ fixture: String) async throws {
        let input = Fixtures.video(fixture)
        let directory = try TemporaryDirectory()
        let output = directory.file("boomerang.mkv")
        let result = try await Self.run(input, output, ["--lossless", "--boomerang"])
        #expect(result.status == 0, "\(result.errorText)")
        let original = try await VideoOracle.pictures(of: input)
        let made = try await VideoOracle.pictures(of: output)
        #expect(made.count == 2 * original.count - 1)
        let expected = original.map(\.md5) + original.dropLast().map(\.md5).reversed()
        #expect(made.map(\.md5) == expected)
        Self.expectTimes(made.map(\.time),
                         VideoOracle.boomerangTimes(original.map(\.time), lastDuration: original.last?.duration ?? 0))
    }

    @Test("an odd size is padded to even by repeating the last column and row: every input pixel kept, and said")
    func oddSize() async throws {
        let input = Fixtures.video("mpeg4-odd-95x71.mp4")
        let directory = try TemporaryDirectory()
        let output = directory.file("reversed.mp4")
        let result = try await Self.run(input, output, ["--lossless"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.warningReports.contains { $0.contains("95×71") && $0.contains("96×72") }, "\(result.errorText)")
        let video = try #require(try await VideoOracle.streams(of: output).first { $0["codec_type"] as? String == "video" })
        #expect(video["width"] as? Int == 96 && video["height"] as? Int == 72)
        let (width, height, paddedWidth, paddedHeight, chroma) = (95, 71, 96, 72, 48 * 36)
        let source = try await VideoOracle.rawPictures(of: input)
        let padded = try await VideoOracle.rawPictures(of: output)
        let sourceSize = width * height + 2 * chroma
        let paddedSize = paddedWidth * paddedHeight + 2 * chroma
        let count = source.count / sourceSize
        #expect(count == 25 && padded.count == count * paddedSize)
        let a = [UInt8](source), b = [UInt8](padded)
        for picture in 0..<count {
            let from = picture * sourceSize, to = (count - 1 - picture) * paddedSize
            for row in 0..<paddedHeight {
                let sourceRow = min(row, height - 1)
                let line = Array(a[(from + sourceRow * width)..<(from + (sourceRow + 1) * width)])
                let expected = line + [line[width - 1]]
                #expect(Array(b[(to + row * paddedWidth)..<(to + (row + 1) * paddedWidth)]) == expected,
                        "picture \(picture) row \(row)")
            }
            #expect(a[(from + width * height)..<(from + sourceSize)] == b[(to + paddedWidth * paddedHeight)..<(to + paddedSize)],
                    "chroma of picture \(picture)")
        }
    }

    @Test("an MPEG-2 program stream stamping only its keyframes' packets (I and P, groups of 11, odd height): every picture, as ffmpeg -vf reverse gives them")
    func programStreamKeepsEveryPicture() async throws {
        let input = Fixtures.video("mpeg2-ps-ip-gop11-odd.mpg")
        let directory = try TemporaryDirectory()
        let output = directory.file("reversed.mkv")
        // A small memory limit: several decode runs, each ending on a picture without a time.
        let result = try await Self.run(input, output, ["--lossless", "--memory-limit", "1"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(!result.errorText.contains("could not be decoded"), "\(result.errorText)")
        let hashed = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", input.path, "-vf", "crop=96:52:0:0,reverse",
                                                      "-f", "framemd5", "-"])
        try #require(hashed.status == 0, "\(hashed.errorText)")
        let expected = hashed.outputText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        #expect(expected.count == 65)
        // Compared without the last row: a 4:2:0 crop to an odd height rounds to an even one.
        let made = try await VideoOracle.pictures(of: output, filter: "crop=96:52:0:0").map(\.md5)
        #expect(made.count == expected.count, "\(made.count) pictures written, ffmpeg -vf reverse gives \(expected.count)")
        #expect(made == expected, "pictures not those of ffmpeg -vf reverse")
    }

    @Test("--audio-codec pcm: the audio equals ffmpeg -af areverse bit for bit, in the decoder's own format",
          arguments: [("h264-25fps-51aac.mov", "mov", "f32le"), ("h264-vfr-pcm.mkv", "mov", "s16le"),
                      ("h264-30fps-bframes-aac.mp4", "mkv", "f32le")])
    func pcmAudio(_ fixture: String, _ container: String, _ format: String) async throws {
        let input = Fixtures.video(fixture)
        let directory = try TemporaryDirectory()
        let output = directory.file("reversed.\(container)")
        let result = try await Self.run(input, output, ["--audio-codec", "pcm", "--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.errorText)")
        let reversed = try await VideoOracle.audio(of: output, format: format)
        #expect(!reversed.isEmpty)
        await #expect(reversed == (try VideoOracle.audio(of: input, format: format, ["-af", "areverse"])))
    }

    @Test("a boomerang's audio is the forward audio followed by its reverse, without a seam")
    func boomerangAudio() async throws {
        let input = Fixtures.video("h264-25fps-51aac.mov")
        let directory = try TemporaryDirectory()
        let output = directory.file("boomerang.mov")
        let result = try await Self.run(input, output, ["--boomerang", "--audio-codec", "pcm", "--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.errorText)")
        let forward = try await VideoOracle.audio(of: input, format: "f32le")
        let backward = try await VideoOracle.audio(of: input, format: "f32le", ["-af", "areverse"])
        #expect(try await VideoOracle.audio(of: output, format: "f32le") == forward + backward)
    }

    @Test("--audio keep copies the audio forwards, unchanged; --audio none leaves it out")
    func keepAndNone() async throws {
        let input = Fixtures.video("h264-30fps-bframes-aac.mp4")
        let directory = try TemporaryDirectory()
        let kept = directory.file("kept.mp4")
        #expect(try await Self.run(input, kept, ["--audio", "keep", "--preset", "ultrafast"]).status == 0)
        #expect(try await VideoOracle.audio(of: kept, format: "f32le") == VideoOracle.audio(of: input, format: "f32le"))
        let inputAudio = try #require(try await VideoOracle.streams(of: input).first { $0["codec_type"] as? String == "audio" })
        let keptAudio = try #require(try await VideoOracle.streams(of: kept).first { $0["codec_type"] as? String == "audio" })
        #expect(keptAudio["codec_name"] as? String == "aac" && keptAudio["bit_rate"] as? String == inputAudio["bit_rate"] as? String)
        let silent = directory.file("silent.mkv")
        #expect(try await Self.run(input, silent, ["--audio", "none", "--preset", "ultrafast"]).status == 0)
        #expect(try await VideoOracle.streams(of: silent).map { $0["codec_type"] as? String } == ["video"])
    }

    @Test("the default: H.264 at CRF 18 and AAC, reversed audio as long as the input's, size and frame rate kept")
    func defaults() async throws {
        let input = Fixtures.video("h264-25fps-51aac.mov")
        let directory = try TemporaryDirectory()
        let output = directory.file("reversed.mp4")
        let result = try await Self.run(input, output)
        #expect(result.status == 0, "\(result.errorText)")
        let streams = try await VideoOracle.streams(of: output)
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        let audio = try #require(streams.first { $0["codec_type"] as? String == "audio" })
        #expect(video["codec_name"] as? String == "h264" && video["pix_fmt"] as? String == "yuv420p")
        #expect(video["width"] as? Int == 96 && video["height"] as? Int == 64)
        #expect(video["avg_frame_rate"] as? String == "25/1")
        #expect(audio["codec_name"] as? String == "aac" && audio["channels"] as? Int == 6)
        // AAC is lossy: the reversed track's length is the input's, within one AAC frame.
        let inputSamples = try await VideoOracle.audio(of: input, format: "f32le").count / 24
        let outputSamples = try await VideoOracle.audio(of: output, format: "f32le").count / 24
        #expect(abs(inputSamples - outputSamples) <= 1024, "\(inputSamples) vs \(outputSamples)")
        // faststart: the index (moov) comes before the media data (mdat).
        let bytes = try Data(contentsOf: output)
        let moov = try #require(bytes.range(of: Data("moov".utf8)))
        let mdat = try #require(bytes.range(of: Data("mdat".utf8)))
        #expect(moov.lowerBound < mdat.lowerBound)
    }

    @Test("rotation is kept in MP4 and MOV; Matroska, which FFmpeg 5.1 cannot give one, gets a warning")
    func rotation() async throws {
        let input = Fixtures.video("h264-rotate90.mp4")
        #expect(try await VideoOracle.rotation(of: input) == 90)
        let directory = try TemporaryDirectory()
        for container in ["mp4", "mov"] {
            let output = directory.file("rotated.\(container)")
            let result = try await Self.run(input, output, ["--preset", "ultrafast"])
            #expect(result.status == 0 && result.warningReports.isEmpty, "\(result.errorText)")
            #expect(try await VideoOracle.rotation(of: output) == 90)
        }
        let result = try await Self.run(input, directory.file("rotated.mkv"), ["--preset", "ultrafast"])
        #expect(result.status == 0)
        #expect(result.warningReports.contains { $0.contains("rotation") && $0.contains(".mp4") }, "\(result.errorText)")
    }

    @Test("a group larger than --memory-limit waits in a temporary file and comes out the same, leaving nothing behind")
    func spill() async throws {
        let input = Fixtures.video("h264-gop250-noaudio.mp4")
        let directory = try TemporaryDirectory()
        let output = directory.file("reversed.mkv")
        let result = try await Self.run(input, output, ["--lossless", "--memory-limit", "1", "--verbose"])
        #expect(result.status == 0, "\(result.errorText)")
        let spilled = result.errorLines.first { $0.contains("temporary file:") } ?? ""
        #expect(spilled.contains("pictures spilled") && !spilled.contains(" 0 pictures"), "\(result.errorText)")
        #expect(result.errorLines.contains { $0.contains("the largest 250 frames") }, "\(result.errorText)")
        let original = try await VideoOracle.pictures(of: input)
        #expect(try await VideoOracle.pictures(of: output).map(\.md5) == original.map(\.md5).reversed())
        #expect(directory.contents == ["reversed.mkv"])
    }

    @Test("--progress json: fractions rising to exactly 1")
    func progress() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["video", Fixtures.video("h264-gop250-noaudio.mp4").path, directory.file("out.mp4").path,
                                  "--progress", "json", "--preset", "ultrafast"])
        #expect(result.status == 0)
        let fractions = try result.errorLines.map { try #require(try jsonObject($0)["fraction"] as? Double) }
        #expect(fractions.count >= 10)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(fractions.last == 1.0)
    }

    @Test("a file without video points to convert --reverse; one line, non-zero exit, no file")
    func noVideo() async throws {
        let directory = try TemporaryDirectory()
        let result = try await Self.run(Fixtures.url("m4a-aac-2ch-44100.m4a"), directory.file("out.mp4"))
        expectFailure(result, naming: "m4a-aac-2ch-44100.m4a")
        #expect(result.errorText.contains("no video stream") && result.errorText.contains("convert") && result.errorText.contains("--reverse"))
        #expect(directory.contents.isEmpty)
    }

    @Test("an unsupported or damaged video stream says which; one line, non-zero exit, no file")
    func unusableStreams() async throws {
        let directory = try TemporaryDirectory()
        // A Matroska codec ID FFmpeg does not know: the stream has no decoder.
        var bytes = try Data(contentsOf: Fixtures.video("h264-opengop.mkv"))
        let id = try #require(bytes.range(of: Data("V_MPEG4/ISO/AVC".utf8)))
        bytes.replaceSubrange(id, with: Data("V_MPEG4/ISO/XYZ".utf8))
        let unknown = directory.file("unknown-codec.mkv")
        try bytes.write(to: unknown)
        let result = try await Self.run(unknown, directory.file("out.mp4"))
        expectFailure(result, naming: "unknown-codec.mkv")
        #expect(result.errorText.contains("video stream 0") && result.errorText.contains("no decoder"), "\(result.errorText)")
        // Not a video at all.
        let junk = directory.file("junk.mp4")
        try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: junk)
        let junkResult = try await Self.run(junk, directory.file("out2.mp4"))
        expectFailure(junkResult, naming: "junk.mp4")
        #expect(junkResult.errorText.contains("not a video file"), "\(junkResult.errorText)")
        #expect(directory.contents == ["junk.mp4", "unknown-codec.mkv"])
    }

    @Test("a truncated file is reversed as far as it decodes, with a warning that says so")
    func truncated() async throws {
        let directory = try TemporaryDirectory()
        let bytes = try Data(contentsOf: Fixtures.video("h264-30fps-bframes-aac.mp4"))
        // Fast start (index first) so that the file still opens; then cut at 60%.
        let whole = directory.file("whole.mp4")
        try bytes.write(to: whole)
        let faststart = directory.file("faststart.mp4")
        _ = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", whole.path, "-c", "copy", "-movflags", "+faststart", faststart.path])
        let cut = directory.file("cut.mp4")
        let full = try Data(contentsOf: faststart)
        try full.prefix(full.count * 6 / 10).write(to: cut)
        let result = try await Self.run(cut, directory.file("out.mkv"), ["--preset", "ultrafast"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.warningReports.contains { $0.contains("video stream 0") && $0.contains("truncated") }, "\(result.errorText)")
    }

    @Test("usage errors: unknown container, codec the container cannot hold, --crf with --lossless, a bad preset",
          arguments: [(["out.wav"], "'.wav'"), (["out.mp4", "--audio-codec", "pcm"], "cannot hold pcm"),
                      (["out.mp4", "--audio-codec", "flac"], ".mkv"), (["out.mp4", "--preset", "turbo"], "unknown preset"),
                      (["out.mp4", "--crf", "60"], "0 to 51"), (["out.mp4", "--crf", "20", "--lossless"], "exclude")])
    func usageErrors(_ arguments: [String], _ phrase: String) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["video", Fixtures.video("h264-30fps-bframes-aac.mp4").path, directory.file(arguments[0]).path]
                                 + arguments.dropFirst())
        #expect(result.status != 0)
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains(phrase), "\(result.errorText)")
        #expect(directory.contents.isEmpty)
    }

    @Test("an existing output needs -y, and the input is never the output")
    func overwrite() async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture("video/h264-30fps-bframes-aac.mp4", into: directory, as: "in.mp4")
        let output = directory.file("out.mp4")
        try Data("old".utf8).write(to: output)
        let refused = try await Self.run(input, output, ["--preset", "ultrafast"])
        expectFailure(refused, naming: "out.mp4")
        #expect(try Data(contentsOf: output) == Data("old".utf8))
        #expect(try await Self.run(input, output, ["--preset", "ultrafast", "-y"]).status == 0)
        #expect(try await VideoOracle.pictures(of: output).count == 60)
        let same = try await Self.run(input, input, ["-y"])
        expectFailure(same, naming: "in.mp4")
        #expect(directory.contents == ["in.mp4", "out.mp4"])
    }

    @Test("SIGINT while a group is spilled and encoding: exit 130, no output, no temporary file")
    func interrupt() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("long.mp4")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=60",
                                                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "250", input.path])
        #expect(made.status == 0)
        let process = Process()
        process.executableURL = BuiltProducts.reverseAudio
        process.arguments = ["video", input.path, directory.file("out.mp4").path, "--preset", "veryslow",
                             "--memory-limit", "2", "--progress", "json"]
        let standardError = Pipe()
        process.standardError = standardError
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Wait for progress past the index and audio, into the pictures.
        let reader = standardError.fileHandleForReading
        _ = try await ProcessRunner.onThreadOfItsOwn {
            var seen = ""
            func reachedPictures() -> Bool {
                seen.split(separator: "\n").contains { line in
                    ((try? jsonObject(String(line)))?["fraction"] as? Double ?? 0) >= 0.05
                }
            }
            while !reachedPictures() {
                let data = reader.availableData
                if data.isEmpty { break }
                seen += String(decoding: data, as: UTF8.self)
            }
        }
        process.interrupt()
        await process.exited()
        _ = await reader.dataUntilClosed()
        #expect(process.terminationStatus == 130)
        #expect(directory.contents == ["long.mp4"], "left behind: \(directory.contents)")
    }
}
