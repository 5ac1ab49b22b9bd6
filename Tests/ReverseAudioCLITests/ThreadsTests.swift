import Foundation
import Testing
import TestSupport

/// `--threads`: a reversal decoded on several threads writes the same bytes as one thread, into
/// PCM (placed straight into the output) and into an encoded format (through the temporary
/// file), and says how many threads decoded; AAC says why it used one.
@Suite(.runsProcesses) struct ThreadsTests {
    static func reverse(_ input: URL, to output: URL, threads: Int?, forwards: Bool = false) async throws -> ProcessResult {
        let result = try await CLI.run(["convert", input.path, output.path, "-y", "--verbose", "--progress", "none"] + (forwards ? [] : ["--reverse"])
                                 + (threads.map { ["--threads", String($0)] } ?? []))
        #expect(result.status == 0, "\(result.errorText)")
        return result
    }

    @Test("MP3, FLAC and WAV reversed (and converted) on 1, 2 and 3 threads and by default: the same bytes; --verbose names the threads",
          arguments: [("mp3", "wav"), ("flac", "wav"), ("wav", "wav"), ("mp3", "flac"), ("wav", "aiff")])
    func sameBytes(_ input: String, _ output: String) async throws {
        let directory = try TemporaryDirectory()
        let mp3 = try await LongInputs.mp3FourMinutes()
        let source: URL
        switch input {
        case "mp3": source = mp3
        default:
            // Ten seconds of the MP3's decode, stored losslessly: long enough for 6 segments.
            source = directory.file("in.\(input)")
            let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", mp3.path, "-t", "10", "-c:a",
                                                        input == "flac" ? "flac" : "pcm_s24le", source.path])
            try #require(made.status == 0, "\(made.errorText)")
        }
        let one = directory.file("one.\(output)")
        let oneRun = try await Self.reverse(source, to: one, threads: 1)
        #expect(oneRun.errorText.contains("threads: 1 decoding"), "\(oneRun.errorText)")
        let expected = try Data(contentsOf: one)
        for threads in [2, 3, nil] {
            let many = directory.file("many-\(threads ?? 0).\(output)")
            let run = try await Self.reverse(source, to: many, threads: threads)
            #expect(try Data(contentsOf: many) == expected, "\(input) → \(output), \(threads.map(String.init) ?? "default") threads: other bytes")
            if let threads {
                #expect(run.errorText.contains("threads: \(threads) decoding"), "\(run.errorText)")
            }
        }
        if output == "wav" {
            #expect(try await FFmpegOracle.samples(of: one) == FFmpegOracle.reversedSamples(of: source))
            // Forwards too: into a PCM file, segments decoded side by side land in order.
            let forwardOne = directory.file("forward-1.wav")
            #expect(try await Self.reverse(source, to: forwardOne, threads: 1, forwards: true).errorText.contains("threads: 1 decoding"))
            let forwardTwo = directory.file("forward-2.wav")
            let run = try await Self.reverse(source, to: forwardTwo, threads: 2, forwards: true)
            #expect(run.errorText.contains("threads: 2 decoding"), "\(run.errorText)")
            #expect(try Data(contentsOf: forwardTwo) == Data(contentsOf: forwardOne))
            #expect(try await FFmpegOracle.samples(of: forwardTwo) == FFmpegOracle.samples(of: source))
        }
        #expect(folderContents(directory.url).allSatisfy { !$0.contains("partial") })
    }

    @Test("a range (--start/--end) decoded on 2 threads: the same bytes as one thread and atrim's; a short range of an MP3 stays on one and says why",
          arguments: ["mp3", "flac", "wav"])
    func ranges(_ input: String) async throws {
        let directory = try TemporaryDirectory()
        let mp3 = try await LongInputs.mp3FourMinutes()
        let source: URL
        if input == "mp3" {
            source = mp3
        } else {
            source = directory.file("in.\(input)")
            let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", mp3.path, "-t", "20", "-c:a",
                                                        input == "flac" ? "flac" : "pcm_s24le", source.path])
            try #require(made.status == 0, "\(made.errorText)")
        }
        // Most of the file (an MP3's packets are then worth finding for the other threads).
        let (start, end) = input == "mp3" ? (30.5, 200.25) : (1.5, 18.25)
        func cut(_ threads: Int, _ name: String, from: Double, to: Double) async throws -> (Data, String) {
            let output = directory.file(name)
            let run = try await CLI.run(["convert", source.path, output.path, "--start", "\(from)", "--end", "\(to)", "--threads", "\(threads)",
                                   "--verbose", "--progress", "none"])
            #expect(run.status == 0, "\(run.errorText)")
            return (try Data(contentsOf: output), run.errorText)
        }
        let (one, _) = try await cut(1, "one.wav", from: start, to: end)
        let (two, text) = try await cut(2, "two.wav", from: start, to: end)
        #expect(text.contains("threads: 2 decoding"), "\(text)")
        #expect(two == one, "\(input): a range on 2 threads differs from one thread")
        let rate = 44100.0
        let oracle = try await FFmpegOracle.samples(of: source, ["-af", "atrim=start_sample=\(Int(start * rate)):end_sample=\(Int(end * rate))"])
        #expect(try await FFmpegOracle.samples(of: directory.file("two.wav")) == oracle)
        if input == "mp3" {
            let (_, short) = try await cut(2, "short.wav", from: 10, to: 20)
            #expect(short.contains("threads: 1 decoding (one thread: the range is less than a quarter of the file"), "\(short)")
        }
    }

    @Test("AAC (noise substitution) and 16-bit WAV (read straight from the file: two threads measured slower) are decoded on one thread, and --verbose says why",
          arguments: [("aac", "m4a", "one thread:"), ("pcm_s16le", "wav", "one thread: PCM read straight from the file")])
    func oneThreadWithReason(_ codec: String, _ container: String, _ reason: String) async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("in.\(container)")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", try LongInputs.mp3FourMinutes().path, "-t", "30",
                                                    "-c:a", codec, input.path])
        try #require(made.status == 0, "\(made.errorText)")
        let run = try await Self.reverse(input, to: directory.file("out.wav"), threads: 2)
        #expect(run.errorText.contains("threads: 1 decoding (\(reason)"), "\(run.errorText)")
        #expect(try await FFmpegOracle.samples(of: directory.file("out.wav")) == FFmpegOracle.reversedSamples(of: input))
    }

    @Test("a FLAC damaged near its start: on 2 threads the same bytes and warnings as on one, which it says it used",
          arguments: ["wav", "flac"])
    func damaged(_ output: String) async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("damaged.flac")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", try LongInputs.mp3FourMinutes().path, "-t", "20",
                                                    "-c:a", "flac", input.path])
        try #require(made.status == 0, "\(made.errorText)")
        // 4 KiB of junk 5% in: packets that fail to decode, in the segment placed last.
        let handle = try FileHandle(forUpdating: input)
        try handle.seek(toOffset: try handle.seekToEnd() / 20)
        try handle.write(contentsOf: Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        try handle.close()
        let one = directory.file("one.\(output)")
        let oneRun = try await Self.reverse(input, to: one, threads: 1)
        let two = directory.file("two.\(output)")
        let twoRun = try await Self.reverse(input, to: two, threads: 2)
        #expect(try Data(contentsOf: two) == Data(contentsOf: one))
        let warnings = { (run: ProcessResult) in run.warningReports }
        #expect(!warnings(oneRun).isEmpty && warnings(twoRun) == warnings(oneRun), "\(twoRun.errorText)")
        #expect(twoRun.errorText.contains("threads: 1 decoding (one thread: the decode met damage)"), "\(twoRun.errorText)")
    }

    /// `seconds` of the four-minute MP3's decode stored as `format` (or the MP3 itself).
    static func input(_ format: String, seconds: Int, in directory: TemporaryDirectory) async throws -> URL {
        let mp3 = try await LongInputs.mp3FourMinutes()
        guard format != "mp3" else { return mp3 }
        let url = directory.file("in.\(format)")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", mp3.path, "-t", "\(seconds)", "-c:a",
                                                    format == "flac" ? "flac" : "pcm_s24le", url.path])
        try #require(made.status == 0, "\(made.errorText)")
        return url
    }

    @Test("forwards into an encoder or a pipe: decoded on 2 threads and handed on in order, the same bytes as one thread",
          arguments: [("mp3", "flac"), ("flac", "m4a"), ("wav", "mp3"), ("mp3", "-")])
    func forwardsInOrder(_ format: String, _ output: String) async throws {
        let directory = try TemporaryDirectory()
        let source = try await Self.input(format, seconds: 75, in: directory)
        func convert(_ threads: Int) async throws -> (Data, String) {
            let target = output == "-" ? "-" : directory.file("out-\(threads).\(output)").path
            let run = try await CLI.run(["convert", source.path, target, "--threads", "\(threads)", "--verbose", "--progress", "none"]
                                  + (output == "-" ? ["--format", "wav"] : []))
            #expect(run.status == 0, "\(run.errorText)")
            let bytes = output == "-" ? run.standardOutput : try Data(contentsOf: URL(fileURLWithPath: target))
            return (bytes, run.errorText)
        }
        let (one, _) = try await convert(1)
        let (two, text) = try await convert(2)
        #expect(text.contains("threads: 2 decoding"), "\(text)")
        #expect(two == one, "\(format) → \(output): other bytes on 2 threads")
    }

    @Test("forwards into FLAC, damage in the middle: the segments before it on 2 threads, the rest on one; the same bytes and warnings as one thread")
    func forwardsDamagedInTheMiddle() async throws {
        let directory = try TemporaryDirectory()
        let input = try await Self.input("flac", seconds: 75, in: directory)
        let handle = try FileHandle(forUpdating: input)
        // 64 KiB of junk two thirds in (a FLAC decoder checks no CRC: less may decode as noise).
        try handle.seek(toOffset: try handle.seekToEnd() * 2 / 3)
        try handle.write(contentsOf: Data((0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        try handle.close()
        let oneRun = try await Self.reverse(input, to: directory.file("one.flac"), threads: 1, forwards: true)
        let twoRun = try await Self.reverse(input, to: directory.file("two.flac"), threads: 2, forwards: true)
        #expect(try Data(contentsOf: directory.file("two.flac")) == Data(contentsOf: directory.file("one.flac")))
        let warnings = { (run: ProcessResult) in run.warningReports }
        #expect(!warnings(oneRun).isEmpty && warnings(twoRun) == warnings(oneRun), "\(twoRun.errorText)")
        #expect(twoRun.errorText.contains("the decode met damage"), "\(twoRun.errorText)")
    }

    @Test("--threads 0 and 257 are usage errors", arguments: ["0", "257"])
    func limits(_ value: String) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["convert", Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, directory.file("o.wav").path,
                                  "--reverse", "--threads", value])
        #expect(result.status == 64 && result.errorText.contains("--threads"), "\(result.errorText)")
        #expect(directory.contents.isEmpty)
    }
}
