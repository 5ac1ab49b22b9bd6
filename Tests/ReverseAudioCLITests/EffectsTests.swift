import Foundation
import Testing
import TestSupport

/// `--gain`, `--fade-in`, `--fade-out` and `--fade-shape` against SoX (`sox -D … gain DB fade
/// SHAPE IN -0 OUT`, no dither) within one step of every sample format, forwards and reversed
/// (SoX reversing first: effects act on what is heard), in a compose plan, and live in playback.
@Suite(.runsProcesses) struct EffectsTests {
    /// One fixture per sample format the decoders give, lossless and lossy (MP3 and AAC decode to
    /// float: SoX gets ffmpeg's float decode of them).
    static let inputs = [
        "wav-pcm_u8-2ch-22050.wav", "wav-pcm_s16le-2ch-44100.wav", "wav-pcm_s24le-2ch-48000.wav", "wav-pcm_s32le-2ch-44100.wav",
        "wav-pcm_f32le-2ch-44100.wav", "wav-pcm_f64le-1ch-22050.wav", "flac-s24-2ch-96000.flac", "mp3-cbr128-xing-2ch-44100.mp3",
        "m4a-aac-2ch-44100.m4a",
    ]

    /// How to read a sample format's samples back for comparing, and one step of it.
    static func raw(_ file: URL) async throws -> (format: String, step: Double, bytes: Int) {
        let stream = try await FFmpegOracle.probe(file).stream
        let format = (stream["sample_fmt"] as? String ?? "").replacingOccurrences(of: "p", with: "")
        let bits = Int(stream["bits_per_raw_sample"] as? String ?? "") ?? 0
        switch format {
        case "u8": return ("u8", 1, 1)
        case "s16": return ("s16le", 1, 2)
        case "s32": return ("s32le", bits == 24 ? 256 : 1, 4)
        case "flt": return ("f32le", 1e-6, 4)
        case "dbl": return ("f64le", 1e-9, 8)
        default: return ("s16le", 1, 2)
        }
    }

    /// The samples of `file` as doubles, in `format`'s units.
    static func values(_ file: URL, _ format: String) async throws -> [Double] {
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-i", file.path, "-f", format, "-"])
        try #require(result.status == 0, "\(result.errorText)")
        let data = result.standardOutput
        return data.withUnsafeBytes { bytes -> [Double] in
            switch format {
            case "u8": return bytes.map { Double($0) }
            case "s16le": return bytes.bindMemory(to: Int16.self).map { Double(Int16(littleEndian: $0)) }
            case "s32le": return bytes.bindMemory(to: Int32.self).map { Double(Int32(littleEndian: $0)) }
            case "f32le": return bytes.bindMemory(to: Float.self).map { Double($0) }
            default: return bytes.bindMemory(to: Double.self).map { $0 }
            }
        }
    }

    /// The largest difference between `ours` and `sox`, in steps; nil when their lengths differ.
    static func worst(_ ours: [Double], _ sox: [Double], step: Double) -> Double? {
        guard ours.count == sox.count else { return nil }
        return zip(ours, sox).map { abs($0 - $1) / step }.max() ?? 0
    }

    /// SoX applied to `input` (ffmpeg's decode of it in its own sample format, for a file SoX
    /// does not read), reversed first when asked.
    static func sox(_ input: URL, _ effects: [String], reverse: Bool, in directory: TemporaryDirectory) async throws -> URL {
        let decoded = directory.file("sox-in.wav")
        let (format, _, _) = try await raw(input)
        let codec = ["u8": "pcm_u8", "s16le": "pcm_s16le", "s32le": "pcm_s32le", "f32le": "pcm_f32le", "f64le": "pcm_f64le"][format]!
        let trim = try await FFmpegOracle.statedEnd(of: input).map { ["-af", "atrim=end_sample=\($0)"] } ?? []
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", input.path] + trim + ["-c:a", codec, decoded.path])
        try #require(made.status == 0, "\(made.errorText)")
        let output = directory.file("sox-out.wav")
        let result = try await ProcessRunner.run("sox", ["-D", decoded.path, output.path] + (reverse ? ["reverse"] : []) + effects)
        try #require(result.status == 0, "sox: \(result.errorText)")
        return output
    }

    @Test("convert: gain and fades equal SoX's within one step of the sample format, forwards and reversed, every shape",
          arguments: inputs)
    func againstSoX(_ name: String) async throws {
        let input = Fixtures.url(name)
        let (format, step, _) = try await Self.raw(input)
        let directory = try TemporaryDirectory()
        for (shape, gain, reverse) in [("l", "-3", false), ("q", "-6.5", true), ("t", "-1", false), ("h", "-2", true), ("p", "-0.5", false)] {
            let output = directory.file("ours.wav")
            let result = try await CLI.convert(input, output, reverse: reverse,
                                         ["--sample-format", "native", "--gain", gain, "--fade-in", "2000s", "--fade-out", "3000s",
                                          "--fade-shape", shape, "-y"])
            try #require(result.status == 0, "\(result.errorText)")
            let sox = try await Self.sox(input, ["gain", gain, "fade", shape, "2000s", "-0", "3000s"], reverse: reverse, in: directory)
            let worst = await Self.worst(try Self.values(output, format), try Self.values(sox, format), step: step)
            #expect(worst != nil && worst! <= 1, "\(name), \(shape), gain \(gain), reverse \(reverse): \(worst.map { "\($0) steps" } ?? "lengths differ")")
        }
    }

    @Test("a gain that clips clips as SoX does", arguments: ["wav-pcm_s16le-2ch-44100.wav", "wav-pcm_u8-2ch-22050.wav"])
    func clipping(_ name: String) async throws {
        let input = Fixtures.url(name)
        let (format, step, _) = try await Self.raw(input)
        let directory = try TemporaryDirectory()
        let output = directory.file("loud.wav")
        let result = try await CLI.convert(input, output, reverse: false, ["--sample-format", "native", "--gain", "12"])
        try #require(result.status == 0, "\(result.errorText)")
        let sox = try await Self.sox(input, ["gain", "12"], reverse: false, in: directory)
        let worst = await Self.worst(try Self.values(output, format), try Self.values(sox, format), step: step)
        #expect(worst != nil && worst! <= 1, "\(name): \(String(describing: worst))")
    }

    @Test("compose: a piece's effects in a plan act on that piece alone; the output's on all of it")
    func plan() async throws {
        let directory = try TemporaryDirectory()
        let wav = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let plan = directory.file("plan.txt")
        try "\"\(wav.path)\" 0 0.25 fade-in=1000s fade-shape=t\n\"\(wav.path)\" reverse gain=-6 fade-out=500s\n"
            .write(to: plan, atomically: true, encoding: .utf8)
        let output = directory.file("composed.wav")
        let result = try await CLI.run(["compose", plan.path, "-o", output.path])
        try #require(result.status == 0, "\(result.errorText)")
        let first = directory.file("first.wav")
        _ = try await ProcessRunner.run("sox", ["-D", wav.path, first.path, "trim", "0", "11025s", "fade", "t", "1000s"])
        let second = directory.file("second.wav")
        _ = try await ProcessRunner.run("sox", ["-D", wav.path, second.path, "reverse", "gain", "-6", "fade", "0", "-0", "500s"])
        let expected = try await Self.values(first, "s16le") + Self.values(second, "s16le")
        let worst = await Self.worst(try Self.values(output, "s16le"), expected, step: 1)
        #expect(worst != nil && worst! <= 1, "\(String(describing: worst))")
    }

    @Test("trim and join take them on their output", arguments: ["trim", "join"])
    func editCommands(_ command: String) async throws {
        let directory = try TemporaryDirectory()
        let wav = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let output = directory.file("out.wav")
        let arguments = command == "trim" ? ["trim", wav.path, output.path, "--start", "0.1", "--end", "0.4"]
                                          : ["join", wav.path, wav.path, "-o", output.path]
        let result = try await CLI.run(arguments + ["--gain", "-3", "--fade-in", "800s", "--fade-out", "1200s", "--fade-shape", "h"])
        try #require(result.status == 0, "\(result.errorText)")
        let sox = directory.file("sox.wav")
        let effects = ["gain", "-3", "fade", "h", "800s", "-0", "1200s"]
        let soxed = try await ProcessRunner.run("sox", command == "trim"
            ? ["-D", wav.path, sox.path, "trim", "4410s", "=17640s"] + effects
            : ["-D", wav.path, wav.path, sox.path] + effects)
        try #require(soxed.status == 0, "\(soxed.errorText)")
        let worst = await Self.worst(try Self.values(output, "s16le"), try Self.values(sox, "s16le"), step: 1)
        #expect(worst != nil && worst! <= 1, "\(command): \(String(describing: worst))")
    }

    @Test("play: live, what the device receives equals convert's output, forwards and backwards",
          arguments: ["flac-s16-2ch-44100.flac", "mp3-cbr128-xing-2ch-44100.mp3"], [false, true])
    func playback(_ name: String, _ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url(name)
        let effects = ["--gain", "-4", "--fade-in", "5000s", "--fade-out", "7000s", "--fade-shape", "q"]
        let played = directory.file("played.wav")
        let play = try await CLI.run(["play", input.path, "--to-file", played.path] + (reverse ? ["--reverse"] : []) + effects)
        try #require(play.status == 0, "\(play.errorText)")
        let converted = directory.file("converted.wav")
        let convert = try await CLI.convert(input, converted, reverse: reverse, effects)
        try #require(convert.status == 0, "\(convert.errorText)")
        #expect(try await FFmpegOracle.samples(of: played) == FFmpegOracle.samples(of: converted))
    }

    @Test("a fade-out of a pipe (no end known in advance) is refused with the reason; a fade-in is not")
    func pipes() async throws {
        let wav = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")
        let piped = { (options: String) in try await PipeTests.shell("cat '\(wav.path)' | \"$RA\" convert - - \(options) > /dev/null") }
        let fadeOut = try await piped("--fade-out 0.1")
        #expect(fadeOut.status == 1 && fadeOut.errorText.contains("end"), "\(fadeOut.errorText)")
        let fadeIn = try await piped("--fade-in 0.1")
        #expect(fadeIn.status == 0, "\(fadeIn.errorText)")
        let reversed = try await piped("--reverse --fade-out 0.1")
        #expect(reversed.status == 0, "a reversed pipe is stored first: its end is known: \(reversed.errorText)")
    }
}
