import Foundation
import Testing
import TestSupport

/// `trim`, `join` and `compose` on lossless inputs: the output decodes to exactly the frames
/// asked for, in the input's own sample format (checked with the ffmpeg CLI and SoX).
@Suite(.runsProcesses) struct EditCommandTests {
    static let lossless = ["wav-pcm_s16le-2ch-44100.wav", "wav-pcm_s24le-2ch-48000.wav", "wav-pcm_f32le-2ch-44100.wav",
                           "wav-pcm_u8-2ch-22050.wav", "aiff-pcm_s16be-2ch-44100.aiff", "caf-pcm_s24be-1ch-48000.caf",
                           "flac-s16-2ch-44100.flac", "flac-s24-2ch-96000.flac", "m4a-alac-2ch-44100.m4a", "caf-alac-2ch-44100.caf"]

    /// The decoded bytes of `url` in its own sample format, the frame size, and the silence byte.
    static func native(_ url: URL) async throws -> (bytes: [UInt8], frameBytes: Int, zero: UInt8, format: String, bits: String?) {
        let stream = try await FFmpegOracle.probe(url).stream
        let format = (stream["sample_fmt"] as? String ?? "").replacingOccurrences(of: "p", with: "")
        let (raw, size): (String, Int) = switch format {
        case "u8": ("u8", 1)
        case "s16": ("s16le", 2)
        case "flt": ("f32le", 4)
        case "dbl": ("f64le", 8)
        default: ("s32le", 4)
        }
        let decoded = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-i", url.path, "-f", raw, "-"])
        let channels = stream["channels"] as? Int ?? 1
        return ([UInt8](decoded.standardOutput), size * channels, format == "u8" ? 0x80 : 0, format, stream["bits_per_raw_sample"] as? String)
    }

    @Test("trim: random ranges (1 frame, the very start, the very end) with silence around, exact and in the input's format",
          arguments: lossless)
    func trim(_ name: String) async throws {
        let input = Fixtures.url(name)
        let source = try await Self.native(input)
        let frames = source.bytes.count / source.frameBytes
        let directory = try TemporaryDirectory()
        var generator = SplitMix(seed: UInt64(name.utf8.count * 7919))
        // A handful through the tool; EditOracleTests takes 100 per format through the library.
        var ranges = [(0, 1), (frames - 1, frames), (frames / 3, frames / 3 + 1)]
        while ranges.count < 5 {
            let a = Int(generator.next() % UInt64(frames))
            ranges.append((a, min(frames, a + 1 + Int(generator.next() % 5000))))
        }
        for (index, (a, b)) in ranges.enumerated() {
            let output = directory.file("cut\(index).\(input.pathExtension)")
            let (before, after) = (index % 3 == 0 ? 100 : 0, index % 2 == 0 ? 37 : 0)
            var options = ["--start", "\(a)s", "--end", "\(b)s"]
            if before > 0 { options += ["--pad-start", "\(before)s"] }
            if after > 0 { options += ["--pad-end", "\(after)s"] }
            let result = try await CLI.run(["trim", input.path, output.path] + options)
            #expect(result.status == 0, "\(name) \(a)..<\(b): \(result.errorText)")
            let written = try await Self.native(output)
            let silence = { (count: Int) in [UInt8](repeating: source.zero, count: count * source.frameBytes) }
            let expected = silence(before) + Array(source.bytes[(a * source.frameBytes)..<(b * source.frameBytes)]) + silence(after)
            #expect(written.bytes == expected, "\(name) \(a)..<\(b) +\(before)/\(after)")
            #expect(written.format == source.format && written.bits == source.bits, "\(name): \(written.format)/\(String(describing: written.bits))")
        }
    }

    /// Every fixture SoX reads (PCM WAV/AIFF/AIFC/CAF of every sample format, FLAC): all but ALAC.
    static var soxReadable: [String] {
        Fixtures.lossless.filter { !$0.contains("alac") }
    }

    @Test("trim equals sox trim and pad, and ffmpeg atrim and apad, on the same file", arguments: soxReadable)
    func matchesSoX(_ name: String) async throws {
        let input = Fixtures.url(name)
        let frames = try await NativePCM.decode(input).frames
        let directory = try TemporaryDirectory()
        // One cut per file (the tool's start-up dominates): the middle, or the very last frame.
        for (a, b) in [name.utf8.count % 2 == 0 ? (frames / 4, frames / 2) : (frames - 1, frames)] {
            let ours = directory.file("ours-\(a).\(input.pathExtension)")
            let run = try await CLI.run(["trim", input.path, ours.path, "--start", "\(a)s", "--end", "\(b)s", "--pad-start", "100s", "--pad-end", "50s"])
            #expect(run.status == 0, "\(run.errorText)")
            let sox = directory.file("sox-\(a).wav")
            let made = try await ProcessRunner.run("sox", [input.path, sox.path, "trim", "\(a)s", "=\(b)s", "pad", "100s", "50s"])
            try #require(made.status == 0, "\(made.errorText)")
            let written = try await NativePCM.decode(ours)
            if ["flt", "dbl"].contains(written.format) {
                // SoX holds samples as 32-bit integers: float samples come back within a float ULP (2^-23).
                let (mine, theirs) = await (try Self.doubles(ours), try Self.doubles(sox))
                #expect(mine.count == theirs.count && zip(mine, theirs).allSatisfy { abs($0 - $1) <= 0x1p-23 },
                        "\(name) \(a)..<\(b): sox trim/pad")
            } else {
                await #expect(written.bytes == (try NativePCM.decode(sox)).bytes, "\(name) \(a)..<\(b): sox trim/pad")
            }
            // ffmpeg: the slice, then apad for the end; the leading silence as sox and we write it.
            let sliced = try await NativePCM.decode(input, ["-af", "atrim=start_sample=\(a):end_sample=\(b),apad=pad_len=50"])
            #expect(written.bytes == sliced.silence(100) + sliced.bytes, "\(name) \(a)..<\(b): ffmpeg atrim/apad")
        }
    }

    @Test("--tail keeps the last T; join puts files end to end with a gap, as sox does")
    func tailAndJoin() async throws {
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let source = try await Self.native(input)
        let directory = try TemporaryDirectory()
        #expect(try await CLI.run(["trim", input.path, directory.file("tail.wav").path, "--tail", "1000s"]).status == 0)
        #expect(try await Self.native(directory.file("tail.wav")).bytes == Array(source.bytes.suffix(1000 * source.frameBytes)))

        let joined = directory.file("joined.wav")
        #expect(try await CLI.run(["join", input.path, input.path, "-o", joined.path, "--gap", "0.1"]).status == 0)
        let padded = directory.file("padded.wav")
        #expect(try await ProcessRunner.run("sox", [input.path, padded.path, "pad", "0", "0.1"]).status == 0)
        let sox = directory.file("sox.wav")
        #expect(try await ProcessRunner.run("sox", [padded.path, input.path, sox.path]).status == 0)
        #expect(try await Self.native(joined).bytes == Self.native(sox).bytes)
        let concatenated = try await NativePCM.decode(input, ["-i", input.path, "-filter_complex", "[0:a]apad=pad_len=4410[p];[p][1:a]concat=n=2:v=0:a=1"])
        #expect(try await Self.native(joined).bytes == concatenated.bytes, "join equals ffmpeg apad + concat")
    }

    @Test("compose: pieces in any order, reversed or not, and silence, equal the matching slices and areverse")
    func compose() async throws {
        let directory = try TemporaryDirectory()
        let a = try copyFixture("flac-s16-2ch-44100.flac", into: directory, as: "a b.flac")
        try copyFixture("wav-pcm_s16le-2ch-44100.wav", into: directory, as: "b.wav")
        let plan = directory.file("plan.txt")
        try """
        # the end of b, silence, the start of a reversed
        b.wav 10000s 12000s
        silence 50s
        "a b.flac" 0 0.1 reverse   # 4410 frames
        """.write(to: plan, atomically: true, encoding: .utf8)
        let output = directory.file("out.flac")
        let result = try await CLI.run(["compose", plan.path, "-o", output.path])
        #expect(result.status == 0, "\(result.errorText)")
        let expected = try await FFmpegOracle.samples(of: directory.file("b.wav"), ["-af", "atrim=start_sample=10000:end_sample=12000"])
            + [Int16](repeating: 0, count: 100)
            + FFmpegOracle.samples(of: a, ["-af", "atrim=start_sample=0:end_sample=4410,areverse"])
        #expect(try await FFmpegOracle.samples(of: output) == expected)
        #expect(try await FFmpegOracle.probe(output).stream["codec_name"] as? String == "flac")
    }

    /// The samples of `url` as ffmpeg decodes them into 64-bit floats.
    static func doubles(_ url: URL) async throws -> [Double] {
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-threads", "1", "-i", url.path, "-f", "f64le", "-"])
        return result.standardOutput.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
    }

    /// The MD5 of every packet of `url`'s audio, in order (`ffmpeg -c copy -f framemd5`).
    static func packetHashes(_ url: URL) async throws -> [String] {
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"])
        return result.outputText.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            // stream, dts, pts, duration, size, hash[, side data…]
            let fields = line.split(separator: ",")
            return fields.count > 5 ? fields[5].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    @Test("an MP3 cut copies the frames byte for byte and decodes to exactly the slice (LAME tag delay and padding)",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "mp3-vbrq4-xing-2ch-44100.mp3", "mp3-cbr32-xing-1ch-8000.mp3",
                      "mp3-cbr64-xing-1ch-22050.mp3"])
    func mp3PacketCopy(_ name: String) async throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let source = try await Self.packetHashes(input)
        for (a, b) in [(1000, 5000), (3000, 7000), (0, 2000), (5500, 7999)] {
            let output = directory.file("cut-\(a).mp3")
            let result = try await CLI.run(["trim", input.path, output.path, "--start", "\(a)s", "--end", "\(b)s", "--verbose"])
            // Every cut longer than a frame is copied, whatever the bit rate (the reservoir repaired where needed).
            #expect(result.status == 0 && result.errorText.contains("copied (MP3 frames"), "\(name) \(a)..<\(b): \(result.errorText)")
            #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.samples(of: input, ["-af", "atrim=start_sample=\(a):end_sample=\(b)"]),
                    "\(name) \(a)..<\(b)")
            await #expect(Self.holdsCopy(source, try Self.packetHashes(output)), "\(name) \(a)..<\(b): the frames are the input's, byte for byte")
        }
    }

    /// True when the packets of an MP3 cut (hashes) are a run of `source`'s, in order, but for a
    /// first frame the cut prepends to carry the bit reservoir its first frames need.
    static func holdsCopy(_ source: [String], _ copied: [String]) -> Bool {
        holds(source, copied) || holds(source, Array(copied.dropFirst()))
    }

    /// True when `copied` (packet hashes) is a non-empty run of `source`'s, in order.
    static func holds(_ source: [String], _ copied: [String]) -> Bool {
        !copied.isEmpty && source.indices.contains { start in
            start + copied.count <= source.count && Array(source[start..<(start + copied.count)]) == copied
        }
    }

    @Test("trim --fade-in/--fade-out copies an MP3 or an M4A but for the frames under the fades (--json counts them); outside, the slice exactly; inside, sox's fade of it",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "mp3-vbrq4-xing-2ch-44100.mp3", "m4a-aac-nopns-2ch-44100.m4a", "m4a-aac-2ch-44100.m4a"])
    func smartFades(_ name: String) async throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let output = directory.file("cut.\(input.pathExtension)")
        let (start, end, fadeIn, fadeOut) = (4410, 41895, 4410, 6615)
        let result = try await CLI.run(["trim", input.path, output.path, "--start", "\(start)s", "--end", "\(end)s", "--fade-in", "\(fadeIn)s",
                                  "--fade-out", "\(fadeOut)s", "--fade-shape", "t", "--json"])
        try #require(result.status == 0, "\(name): \(result.errorText)")
        let json = try jsonObject(result.outputText)
        let pieces = json["pieces"] as? [String] ?? []
        #expect(pieces.first?.hasPrefix("copied") == true, "\(name): \(pieces)")
        let frameSize = name.hasSuffix(".mp3") ? 1152 : 1024
        let counts = json["reencodedFrames"] as? [String: Int] ?? [:]
        #expect((1...(fadeIn / frameSize + 3)).contains(counts["fadeIn"] ?? 0), "\(name): \(counts)")
        #expect((1...(fadeOut / frameSize + 3)).contains(counts["fadeOut"] ?? 0), "\(name): \(counts)")
        #expect((json["copiedShare"] as? Double ?? 0) > 0.3, "\(name): \(json)")
        // The copied packets are the input's, byte for byte.
        let source = try await Self.packetHashes(input)
        let copied = try await Self.packetHashes(output).dropFirst(counts["fadeIn"] ?? 0).dropLast(counts["fadeOut"] ?? 0)
        #expect(Self.holds(source, Array(copied)), "\(name): the packets between the fades are not the input's")
        // Outside the fades (widened to two frames), the slice of the continuous decode, exactly;
        // inside, the slice faded by sox, within the codec's noise. (FFmpeg decodes an MP4's last packet whole.)
        let length = end - start
        let ours = await Array(try FFmpegOracle.samples(of: output).prefix(2 * length))
        try #require(ours.count == 2 * length, "\(name): \(ours.count / 2) frames")
        let slice = try await FFmpegOracle.samples(of: input, ["-af", "atrim=start_sample=\(start):end_sample=\(end)"])
        let exact = (fadeIn + 2 * frameSize)..<(length - fadeOut - frameSize)
        let noiseSubstitution = name == "m4a-aac-2ch-44100.m4a"
        if !noiseSubstitution {
            #expect(ours[(2 * exact.lowerBound)..<(2 * exact.upperBound)] == slice[(2 * exact.lowerBound)..<(2 * exact.upperBound)], "\(name)")
        }
        let sliced = directory.file("slice.wav")
        let faded = directory.file("faded.wav")
        _ = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", input.path, "-af", "atrim=start_sample=\(start):end_sample=\(end)",
                                             "-c:a", "pcm_s16le", sliced.path])
        let sox = try await ProcessRunner.run("sox", [sliced.path, faded.path, "fade", "t", "\(fadeIn)s", "-0", "\(fadeOut)s"])
        try #require(sox.status == 0, "\(sox.errorText)")
        let expected = try await FFmpegOracle.samples(of: faded)
        for part in [0..<exact.lowerBound, exact.upperBound..<length] {
            var error = 0.0
            var signal = 0.0
            for index in (2 * part.lowerBound)..<(2 * part.upperBound) {
                error += pow(Double(ours[index]) - Double(expected[index]), 2)
                signal += pow(Double(expected[index]), 2)
            }
            // 16-bit samples here; the codec's noise on these fixtures is under -20 dB.
            #expect(error < signal / 100, "\(name) \(part): the fade is off by \(10 * log10(error / signal)) dB")
        }
        // Asked to re-encode, it does, and says nothing of fades copied.
        let whole = try await CLI.run(["trim", input.path, directory.file("whole.\(input.pathExtension)").path, "--start", "\(start)s", "--end", "\(end)s",
                                 "--fade-in", "\(fadeIn)s", "--fade-out", "\(fadeOut)s", "--reencode", "--json"])
        let wholeJSON = try jsonObject(whole.outputText)
        #expect(whole.status == 0 && wholeJSON["reencodedFrames"] == nil && (wholeJSON["pieces"] as? [String])?.first?.hasPrefix("re-encoded") == true,
                "\(name): \(whole.outputText)")
    }

    @Test("an MP3 written from audio shorter than LAME's delay and a frame decodes to its length (FFmpeg 5.1's libmp3lame wrapper misstates the end padding: 1168 samples decode to 1199 from the ffmpeg CLI)",
          arguments: [44100, 22050, 8000])
    func shortMP3Encodes(_ rate: Int) async throws {
        let directory = try TemporaryDirectory()
        for frames in [500, 1168, 2000, 3000] {
            let wav = directory.file("short-\(frames).wav")
            let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=\(rate),atrim=end_sample=\(frames)",
                                                        "-ac", "2", "-c:a", "pcm_s16le", wav.path])
            try #require(made.status == 0, "\(made.errorText)")
            let mp3 = directory.file("short-\(frames).mp3")
            let result = try await CLI.run(["convert", wav.path, mp3.path])
            #expect(result.status == 0 && !result.errorText.contains("decodes to"), "\(rate) Hz, \(frames): \(result.errorText)")
            let decoded = try await FFmpegOracle.samples(of: mp3).count / 2
            #expect(decoded == frames, "\(rate) Hz, \(frames) frames: ffmpeg decodes \(decoded)")
            let mpg123 = try await ProcessRunner.run("mpg123", ["-q", "-s", "-e", "s16", mp3.path])
            #expect(mpg123.standardOutput.count == 4 * frames, "\(rate) Hz, \(frames) frames: mpg123 decodes \(mpg123.standardOutput.count / 4)")
        }
    }

    @Test("MPEG-2 VBR (lame -V9 at 22.05 kHz, frames of 26 to 522 bytes), every command that seeks: a reversal on 2 threads, play --reverse, 150 ranges composed into a WAV equal ffmpeg")
    func mpeg2VariableBitRateCommands() async throws {
        let directory = try TemporaryDirectory()
        let input = try await MP3Classes.make(try #require(MP3Classes.main.first { $0.name == "lame -V9" }), seconds: 8, in: directory.url)
        let reversed = directory.file("reversed.wav")
        #expect(try await CLI.run(["convert", input.path, reversed.path, "--reverse", "--threads", "2", "-q"]).status == 0)
        let expected = try await FFmpegOracle.samples(of: input, ["-af", "areverse"])
        #expect(try await FFmpegOracle.samples(of: reversed) == expected, "convert --reverse --threads 2")
        let played = directory.file("played.wav")
        #expect(try await CLI.run(["play", input.path, "--reverse", "--to-file", played.path, "-q"]).status == 0)
        #expect(try await FFmpegOracle.samples(of: played) == expected, "play --reverse")
        let whole = try await FFmpegOracle.samples(of: input)
        // 150 ranges in one plan: one process, a seek each.
        var generator = SplitMix(seed: 9)
        var plan = ""
        var slices: [Int16] = []
        for _ in 0..<150 {
            let start = Int(generator.next() % UInt64(whole.count / 2 - 2000))
            plan += "\(input.lastPathComponent) \(start)s \(start + 1500)s\n"
            slices += whole[(2 * start)..<(2 * start + 3000)]
        }
        try plan.write(to: directory.file("plan.txt"), atomically: true, encoding: .utf8)
        let composed = directory.file("ranges.wav")
        let compose = try await CLI.run(["compose", directory.file("plan.txt").path, "-o", composed.path, "-q"])
        #expect(compose.status == 0, "\(compose.errorText)")
        let ours = try await FFmpegOracle.samples(of: composed)
        let wrong = stride(from: 0, to: min(ours.count, slices.count), by: 3000).filter { ours[$0..<min(ours.count, $0 + 3000)] != slices[$0..<($0 + 3000)] }
            .map { $0 / 3000 }
        #expect(ours.count == slices.count, "compose of 150 ranges: \(ours.count / 2) frames")
        #expect(wrong.isEmpty, "ranges \(wrong) of the plan differ from ffmpeg's decode")
    }

    @Test("a long MP3 cuts exactly: the middle, near and at the end")
    func longMP3PacketCopy() async throws {
        // 128 kb/s: the bit reservoir reaches before almost every cut, and the cut repairs it.
        let input = try await SignalFiles.shared("one-minute-128k.mp3", seconds: 60, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
        let full = try await FFmpegOracle.samples(of: input)
        let frames = full.count / 2
        let source = try await Self.packetHashes(input)
        let directory = try TemporaryDirectory()
        for (a, b) in [(frames / 3, frames / 3 + 441_000), (frames - 5 * 44100, frames - 44100), (frames - 2 * 44100, frames)] {
            let output = directory.file("cut-\(a).mp3")
            let result = try await CLI.run(["trim", input.path, output.path, "--start", "\(a)s", "--end", "\(b)s", "--verbose"])
            #expect(result.status == 0 && result.errorText.contains("copied (MP3 frames"), "\(a)..<\(b): \(result.errorText)")
            #expect(try await FFmpegOracle.samples(of: output) == Array(full[(2 * a)..<(2 * b)]), "\(a)..<\(b)")
            await #expect(Self.holdsCopy(source, try Self.packetHashes(output)), "\(a)..<\(b): the frames are the input's, byte for byte")
        }
    }

    @Test("bad ranges, plans and mixed inputs: one-line errors, nothing written")
    func badInput() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")  // 0.5 s
        let output = directory.file("out.wav")
        for options in [["--start", "0.3", "--end", "0.2"], ["--start", "2"], ["--start", "-1"], ["--end=-1"]] {
            let result = try await CLI.run(["trim", input.path, output.path] + options)
            #expect(result.status != 0 && result.errorLines.first?.hasPrefix("reverse-audio: error: ") == true, "\(options): \(result.errorText)")
        }
        // A range past the end says how long the file is, for lossless and packet-copied inputs alike.
        for (file, options, length) in [(input, ["--start", "0.1", "--end", "0.6"], "22050 frames"), (input, ["--start", "1"], "22050 frames"),
                                        (Fixtures.url("m4a-aac-2ch-44100.m4a"), ["--duration", "2"], "44100 frames"),
                                        (Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3"), ["--start", "0.5", "--end", "1.5"], "44100 frames")] {
            let result = try await CLI.run(["trim", file.path, directory.file("out.\(file.pathExtension)").path] + options)
            expectFailure(result, naming: length)
        }
        let missing = try await CLI.run(["compose", directory.file("none.txt").path, "-o", output.path])
        expectFailure(missing, naming: "none.txt")
        let plan = directory.file("plan.txt")
        try "\(input.path)\nsilence soon\n".write(to: plan, atomically: true, encoding: .utf8)
        let bad = try await CLI.run(["compose", plan.path, "-o", output.path])
        expectFailure(bad, naming: "line 2")
        try "# a comment\n\n\(input.path) 0 0.1\n\(input.path) 0.1 0.1 reverse\n".write(to: plan, atomically: true, encoding: .utf8)
        await expectFailure(try CLI.run(["compose", plan.path, "-o", output.path]), naming: "line 4: the end (0.100 s) must come after the start")
        try "\(input.path) 0 0.1 backwards\n".write(to: plan, atomically: true, encoding: .utf8)
        await expectFailure(try CLI.run(["compose", plan.path, "-o", output.path]), naming: "line 1")
        let mixed = try await CLI.run(["join", input.path, Fixtures.url("wav-pcm_s16le-1ch-8000.wav").path, "-o", output.path])
        expectFailure(mixed, naming: "wav-pcm_s16le-1ch-8000.wav")
        #expect(directory.contents == ["plan.txt"])
    }
}

