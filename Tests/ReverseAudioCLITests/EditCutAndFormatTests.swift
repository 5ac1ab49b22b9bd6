import Foundation
import Testing
import TestSupport

/// What `trim`, `join` and `compose` promise beyond the samples: MP3 cuts that state themselves
/// as LAME writes it and play without a decoder's complaint, gapless statements for Apple's
/// players, ADTS outputs that say what they decode to, lengths every command agrees on, and
/// joins that never narrow a sample format.
@Suite(.runsProcesses) struct EditCutAndFormatTests {
    /// A 24-bit FLAC and a 16-bit WAV of the same rate and layout as the float WAV fixture.
    static func mixedInputs(in directory: TemporaryDirectory) async throws -> (s16: URL, s24: URL, f32: URL) {
        let s24 = directory.file("take24.flac")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                                                    "aevalsrc=exprs='0.5*sin(2*PI*440*t)|0.4*sin(2*PI*660*t)':c=stereo:s=44100:d=0.2",
                                                    "-c:a", "flac", "-sample_fmt", "s32", "-bits_per_raw_sample", "24", s24.path])
        try #require(made.status == 0, "\(made.errorText)")
        return (Fixtures.url("wav-pcm_s16le-2ch-44100.wav"), s24, Fixtures.url("wav-pcm_f32le-2ch-44100.wav"))
    }

    /// `url` decoded by ffmpeg as `format` ("s32", "flt"), as raw bytes.
    static func decoded(_ url: URL, as format: String) async throws -> [UInt8] {
        let raw = format == "s32" ? "s32le" : format == "flt" ? "f32le" : "s16le"
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-i", url.path, "-af", "aformat=sample_fmts=\(format)",
                                                      "-f", raw, "-"])
        return [UInt8](result.standardOutput)
    }

    @Test("join and compose keep the widest sample format of their pieces, in either order, and --verbose names each conversion")
    func joinsNeverNarrow() async throws {
        let directory = try TemporaryDirectory()
        let (s16, s24, f32) = try await Self.mixedInputs(in: directory)
        // (pieces, output, ffprobe's sample format and bits of the output, the raw format both are compared in)
        let cases: [([URL], String, String, String?, String)] = [
            ([s16, s24], "a.flac", "s32", "24", "s32"), ([s24, s16], "b.flac", "s32", "24", "s32"),
            ([s16, s24], "c.wav", "s32", "24", "s32"), ([s24, s16], "d.wav", "s32", "24", "s32"),
            ([s16, f32], "e.wav", "flt", nil, "flt"), ([f32, s16], "f.wav", "flt", nil, "flt"),
        ]
        for (pieces, name, format, bits, raw) in cases {
            let output = directory.file(name)
            let result = try await CLI.run(["join"] + pieces.map(\.path) + ["-o", output.path, "--verbose"])
            let label = "\(pieces.map(\.lastPathComponent)) → \(name)"
            try #require(result.status == 0, "\(label): \(result.errorText)")
            let stream = try await FFmpegOracle.probe(output).stream
            #expect((stream["sample_fmt"] as? String)?.hasPrefix(format) == true, "\(label): \(String(describing: stream["sample_fmt"]))")
            if let bits { #expect(stream["bits_per_raw_sample"] as? String == bits || stream["bits_per_sample"] as? Int == Int(bits), "\(label): \(stream)") }
            // Every sample exactly: the pieces widened by ffmpeg's own conversion, end to end.
            var expected: [UInt8] = []
            for piece in pieces { expected += try await Self.decoded(piece, as: raw) }
            #expect(try await Self.decoded(output, as: raw) == expected, "\(label): not the pieces end to end")
            // --verbose: the narrower piece is "converted (sample format … → … (exact))", the other copied.
            let lines = result.errorLines.filter { $0.hasPrefix("  piece ") }
            #expect(lines.count == 2 && lines.contains { $0.contains("converted (sample format") && $0.contains("(exact)") }
                        && lines.contains { $0.contains("copied (samples as they are)") }, "\(label): \(lines)")
        }
        // compose, the same rule.
        let plan = directory.file("plan.txt")
        try "\(s16.path)\nsilence 100s\n\(s24.path) 0 0.1\n".write(to: plan, atomically: true, encoding: .utf8)
        let composed = directory.file("composed.flac")
        let result = try await CLI.run(["compose", plan.path, "-o", composed.path])
        try #require(result.status == 0, "\(result.errorText)")
        #expect(try await FFmpegOracle.probe(composed).stream["bits_per_raw_sample"] as? String == "24")
        // --sample-format says otherwise, and --verbose says what it narrowed.
        let narrowed = directory.file("narrowed.wav")
        let asked = try await CLI.run(["join", s24.path, s16.path, "-o", narrowed.path, "--sample-format", "s16", "--verbose"])
        try #require(asked.status == 0, "\(asked.errorText)")
        #expect(try await FFmpegOracle.probe(narrowed).stream["sample_fmt"] as? String == "s16")
        #expect(asked.errorText.contains("sample format s24 → s16 (the sample format asked for)"), "\(asked.errorText)")
        // Another rate is still an error without --convert.
        let mismatch = try await CLI.run(["join", s16.path, Fixtures.url("wav-pcm_s24le-2ch-48000.wav").path, "-o", directory.file("x.wav").path])
        expectFailure(mismatch, naming: "wav-pcm_s24le-2ch-48000.wav")
    }

    @Test("an ADTS cut says how many frames more it decodes to, and reports what it decodes to; info agrees")
    func adtsSaysWhatItDecodesTo() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("cut.aac")
        let result = try await CLI.run(["trim", Fixtures.url("adts-aac-2ch-44100.aac").path, output.path, "--start", "1000s", "--end", "9000s"])
        try #require(result.status == 0, "\(result.errorText)")
        let decoded = try await FFmpegOracle.samples(of: output).count / 2
        #expect(decoded > 8000)
        #expect(result.warningReports.count == 1 && result.warningReports[0].contains("decodes to \(decoded) frames, \(decoded - 8000) more than the 8000")
                    && result.warningReports[0].contains(".m4a"), "\(result.errorText)")
        #expect(ConsistencyTests.Check.summaryFrames(result.outputText) == decoded, "\(result.outputText)")
        let info = try await CLI.run(["info", "--json", output.path])
        #expect(try jsonObject(info.outputLines.first ?? "")["frames"] as? Int == decoded)
        // A lossless input into ADTS: the same statement, as a warning of its own.
        let encoded = directory.file("encoded.aac")
        let fromWAV = try await CLI.run(["trim", Fixtures.url("wav-pcm_s16le-2ch-44100.wav").path, encoded.path, "--end", "5000s"])
        try #require(fromWAV.status == 0, "\(fromWAV.errorText)")
        let encodedFrames = try await FFmpegOracle.samples(of: encoded).count / 2
        #expect(fromWAV.warningReports.count == 1 && fromWAV.warningReports[0].contains("decodes to \(encodedFrames) frames"),
                "\(fromWAV.errorText)")
        #expect(ConsistencyTests.Check.summaryFrames(fromWAV.outputText) == encodedFrames, "\(fromWAV.outputText)")
    }

    /// The frames `info --json`, `convert` and `play --to-file` give for `file`.
    static func lengths(of file: URL, in directory: TemporaryDirectory, channels: Int) async throws -> [String: Int] {
        var result: [String: Int] = [:]
        let info = try await CLI.run(["info", "--json", file.path])
        result["info"] = try jsonObject(info.outputLines.first ?? "")["frames"] as? Int
        let wav = directory.file("converted-\(file.lastPathComponent).wav")
        let converted = try await CLI.run(["convert", file.path, wav.path, "-y", "--progress", "none"])
        result["convert"] = converted.status == 0 ? converted.outputText.firstMatch(of: /, (\d+) frames/).flatMap { Int($0.1) } : nil
        let played = directory.file("played-\(file.lastPathComponent).wav")
        let play = try await CLI.run(["play", file.path, "--to-file", played.path, "-y"])
        result["play"] = await play.status == 0 ? try FFmpegOracle.samples(of: played).count / channels : nil
        return result
    }

    @Test("info, convert and play agree with trim on the length of every cut it wrote (MP3, M4A, ADTS)")
    func commandsAgreeOnCuts() async throws {
        let directory = try TemporaryDirectory()
        for (name, cutName) in [("mp3-vbrq4-xing-2ch-44100.mp3", "cut.mp3"), ("m4a-aac-nopns-2ch-44100.m4a", "cut.m4a"),
                                ("adts-aac-2ch-44100.aac", "cut.aac"), ("mp3-cbr128-noxing-2ch-44100.mp3", "cut2.mp3")] {
            let output = directory.file(cutName)
            let trim = try await CLI.run(["trim", Fixtures.url(name).path, output.path, "--start", "3333s", "--end", "30001s"])
            try #require(trim.status == 0, "\(name): \(trim.errorText)")
            let said = try #require(ConsistencyTests.Check.summaryFrames(trim.outputText), "\(name): \(trim.outputText)")
            let lengths = try await Self.lengths(of: output, in: directory, channels: 2)
            #expect(lengths.values.allSatisfy { $0 == said } && lengths.count == 3, "\(name): trim says \(said), the others \(lengths)")
            if !name.hasPrefix("adts") { #expect(said == 30001 - 3333, "\(name): \(said)") }
        }
    }

    /// The LAME tag of an MP3 cut, read as LAME lays it out.
    struct LAMETag {
        let frames: Int
        let encoder: String
        let delay: Int
        let padding: Int
        let crcMatches: Bool
        let samplesPerFrame: Int

        init(_ url: URL) throws {
            let bytes = [UInt8](try Data(contentsOf: url))
            let parsed = MP3Classes.audioFrames(bytes)
            let frame = Array(bytes[try #require(parsed.tagFrame, "no tag frame in \(url.lastPathComponent)")])
            let header = frame.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let lowRate = (header >> 19) & 3 != 3
            let mono = (header >> 6) & 3 == 3
            let offset = 4 + (lowRate ? (mono ? 9 : 17) : (mono ? 17 : 32))
            func integer(_ at: Int, _ width: Int) -> Int { frame[at..<(at + width)].reduce(0) { $0 << 8 | Int($1) } }
            frames = integer(offset + 8, 4)
            encoder = String(decoding: frame[(offset + 120)..<(offset + 129)].prefix { $0 != 0 }, as: UTF8.self)
            let fields = integer(offset + 141, 3)
            delay = fields >> 12
            padding = fields & 0xFFF
            var crc: UInt16 = 0
            for byte in frame[0..<(offset + 154)] {
                crc ^= UInt16(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
            }
            crcMatches = Int(crc) == integer(offset + 154, 2)
            samplesPerFrame = lowRate ? 576 : 1152
        }
    }

    @Test("a repaired MP3 cut states itself in a LAME tag as LAME writes it and in iTunSMPB, and plays in ffmpeg, mpg123 and sox without a warning")
    func repairedCutPlaysEverywhere() async throws {
        let directory = try TemporaryDirectory()
        for kind in [MP3Classes.main[2], MP3Classes.main[7], MP3Classes.more[0]] {   // lame -V9 (MPEG-2), ffmpeg 64k mono, CRC
            let input = try await MP3Classes.make(kind, seconds: 4, in: directory.url)
            let output = directory.file("cut.mp3")
            let trim = try await CLI.run(["trim", input.path, output.path, "--start", "1.2345", "--duration", "1.5", "--verbose", "-y"])
            try #require(trim.status == 0, "\(kind): \(trim.errorText)")
            #expect(trim.errorText.contains("copied (MP3 frames byte for byte") && trim.errorText.contains("silent frame carrying"),
                    "\(kind): \(trim.errorText)")
            let frames = try #require(ConsistencyTests.Check.summaryFrames(trim.outputText))
            let tag = try LAMETag(output)
            #expect(tag.crcMatches, "\(kind): the LAME tag's CRC is not LAME's")
            #expect(tag.encoder.hasPrefix(kind.name.hasPrefix("lame") ? "LAME" : "Lav"), "\(kind): encoder \(tag.encoder)")
            #expect(tag.frames * tag.samplesPerFrame - tag.delay - tag.padding == frames, "\(kind): \(tag)")
            let tags = try await FFmpegOracle.probe(output).format["tags"] as? [String: String] ?? [:]
            func hex(_ value: Int, _ width: Int) -> String {
                let digits = String(value, radix: 16, uppercase: true)
                return String(repeating: "0", count: max(0, width - digits.count)) + digits
            }
            let gapless = " 00000000 \(hex(tag.delay, 8)) \(hex(tag.padding, 8)) \(hex(frames, 16))"
            #expect(tags["iTunSMPB"]?.hasPrefix(gapless) == true, "\(kind): iTunSMPB \(String(describing: tags["iTunSMPB"])), expected \(gapless)")
            // No decoder complains.
            let ffmpeg = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "warning", "-i", output.path, "-f", "null", "-"])
            #expect(ffmpeg.status == 0 && ffmpeg.errorText.isEmpty, "\(kind): ffmpeg: \(ffmpeg.errorText)")
            let mpg123 = try await ProcessRunner.run("mpg123", ["-q", "-t", output.path])
            #expect(mpg123.status == 0 && mpg123.errorText.isEmpty, "\(kind): mpg123: \(mpg123.errorText)")
            let sox = try await ProcessRunner.run("sox", [output.path, "-n"])
            #expect(sox.status == 0 && sox.errorText.isEmpty, "\(kind): sox: \(sox.errorText)")
            // mpg123 honours the tag: exactly the cut's length.
            let decoded = try await ProcessRunner.run("mpg123", ["-q", "-s", output.path])
            let channels = try await FFmpegOracle.probe(output).stream["channels"] as? Int ?? 1
            #expect(decoded.standardOutput.count / 2 / channels == frames, "\(kind): mpg123 decodes \(decoded.standardOutput.count / 2 / channels)")
        }
    }

    @Test("an M4A cut states itself in iTunSMPB too: the edit's media_time as priming, and the length; ffmpeg's decode is unchanged")
    func m4aCutHasITunesGaplessInfo() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("m4a-aac-nopns-2ch-44100.m4a")
        let full = try await FFmpegOracle.samples(of: input)
        for (a, b) in [(0, 2000), (10000, 30000)] {
            let output = directory.file("cut-\(a).m4a")
            let trim = try await CLI.run(["trim", input.path, output.path, "--start", "\(a)s", "--end", "\(b)s"])
            try #require(trim.status == 0, "\(trim.errorText)")
            let edit = try EditPacketCopyTests.editList(output)
            let mediaTime = try #require(edit.edits.first?.mediaTime)
            let tags = try await FFmpegOracle.probe(output).format["tags"] as? [String: String] ?? [:]
            let text = try #require(tags["iTunSMPB"], "no iTunSMPB in \(tags)")
            let fields = text.split(separator: " ").compactMap { UInt64($0, radix: 16) }
            #expect(fields.count == 12 && fields[1] == UInt64(mediaTime) && fields[3] == UInt64(b - a), "\(a)..<\(b): \(text), media_time \(mediaTime)")
            #expect(try await FFmpegOracle.samples(of: output) == Array(full[(2 * a)..<(2 * b)]), "\(a)..<\(b)")
        }
    }
}
