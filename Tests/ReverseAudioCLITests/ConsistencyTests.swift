import Foundation
import Testing
import TestSupport

/// Every command agrees on one length per file: the length the ffmpeg CLI decodes, except that a
/// file in an MP4 container follows its stated duration when that is shorter (``LengthOracle``).
/// `info`, `convert` (forwards and reversed), `play --reverse --to-file`, `trim` (the middle third,
/// and `--tail 1`) and `waveform` are each checked against that one oracle, on every fixture that
/// decodes, damaged ones included.
@Suite(.runsProcesses) struct ConsistencyTests {
    /// Damaged fixtures that FFmpeg still decodes in part (their decode is the oracle, as for any
    /// file). Left out: `bad-empty.wav`, `bad-text.mp3` and `bad-noaudio.mp4` (nothing to
    /// decode), `bad-truncated-30pct-moovatend.m4a` (its index is lost: FFmpeg rejects it).
    static let damagedButDecodable = [
        "bad-truncated-30pct.mp3",               // 30% of an MP3: the Xing header states the whole
        "bad-truncated-30pct.flac",              // 30% of a FLAC: STREAMINFO states the whole
        "bad-truncated-30pct-faststart.m4a",     // an MP4 whose index states more than its data holds
        "bad-flac-cut-short.flac",               // a FLAC cut inside a frame, decoding 1.5 s of 3
        "bad-adts-cut-short.aac",                // ADTS cut inside its last packet
        "bad-mp3-damaged-frame.mp3",             // one frame in the middle the decoder rejects
        "bad-flac-damaged-frame.flac",           // one FLAC frame in the middle the decoder rejects
        "bad-wav-cut-short.wav",                 // a WAV whose header states more than the file holds
    ]

    static var inputs: [String] {
        Fixtures.decodable + damagedButDecodable.filter { Fixtures.names.contains($0) }
    }

    @Test("info, convert, convert --reverse, play --reverse, trim, waveform and trim --tail agree with the oracle's length",
          arguments: inputs)
    func commandsAgree(_ name: String) async throws {
        let input = Fixtures.url(name)
        let oracle = try await LengthOracle(input)
        let directory = try TemporaryDirectory()
        let check = Check(name: name, input: input, oracle: oracle, directory: directory)
        await check.run("info", check.info)
        await check.run("convert", check.convert)
        await check.run("convert --reverse", check.convertReversed)
        await check.run("play --reverse", check.playReversed)
        await check.run("trim middle third", check.trimMiddle)
        await check.run("waveform", check.waveform)
        await check.run("trim --tail 1", check.trimTail)
    }

    /// The checks on one input; each reports its failures tagged with the command.
    struct Check {
        let name: String
        let input: URL
        let oracle: LengthOracle
        let directory: TemporaryDirectory

        var F: Int { oracle.frames }

        /// Runs one check; an error thrown inside is recorded under its label and the next check runs.
        func run(_ label: String, _ body: (String) async throws -> Void) async {
            let tag = "\(name) [\(label)], oracle \(oracle.summary)"
            do {
                try await body(tag)
            } catch is ExpectationFailedError {
                // A failed #require: already recorded, with its message.
            } catch {
                Issue.record("\(tag): \(error)")
            }
        }

        /// The extension a cut of this input is written with: the input's own, except ADTS `.aac`,
        /// which cannot state its encoder priming or a cut's end (no edit list, no gapless tag), so a
        /// re-encoded ADTS cut decodes to more than the cut; `.m4a` states both.
        /// A cut in the input's format, unless that format cannot state a cut's length as ffmpeg
        /// decodes it: ADTS has no place to; FFmpeg 5.1 decodes Vorbis (in Ogg and Matroska) past
        /// its stated end. Those are cut into M4A.
        var cutExtension: String {
            input.pathExtension.lowercased() == "aac" || oracle.codec == "vorbis" ? "m4a" : input.pathExtension
        }

        /// a. `info --json` states the oracle's frame count.
        func info(_ tag: String) async throws {
            let result = try await CLI.run(["info", "--json", input.path])
            try #require(result.status == 0, "\(tag): \(result.errorText)")
            let object = try jsonObject(result.outputLines.first ?? "")
            #expect(object["frames"] as? Int == F, "\(tag): info says \(String(describing: object["frames"])) frames")
        }

        /// b. `convert` to a 16-bit WAV decodes to exactly the oracle's samples.
        func convert(_ tag: String) async throws {
            let output = directory.file("forward.wav")
            let result = try await CLI.run(["convert", input.path, output.path, "-y", "--progress", "none"])
            try #require(result.status == 0, "\(tag): \(result.errorText)")
            let written = try await FFmpegOracle.samples(of: output)
            let exact = written == oracle.samples  // compared outside #expect, which would print both arrays
            #expect(exact, "\(tag): \(Self.difference(written, oracle.samples, channels: oracle.channels))")
        }

        /// c. `convert --reverse` decodes to exactly the oracle reversed.
        func convertReversed(_ tag: String) async throws {
            let output = directory.file("reversed.wav")
            let result = try await CLI.run(["convert", input.path, output.path, "--reverse", "-y", "--progress", "none"])
            try #require(result.status == 0, "\(tag): \(result.errorText)")
            let written = try await FFmpegOracle.samples(of: output)
            let expected = oracle.reversedSamples
            let exact = written == expected
            #expect(exact, "\(tag): \(Self.difference(written, expected, channels: oracle.channels))")
        }

        /// d. `play --reverse --to-file` renders exactly the oracle reversed. AAC that uses
        /// perceptual noise substitution (every AAC fixture but the `nopns` ones) cannot be
        /// bit-exact after a seek: the decoder draws the noise from a generator whose state only a
        /// continuous decode has, and playing backwards decodes chunks after seeks. So for those,
        /// the same length and a difference whose RMS is under 15% of the signal's (measured: the
        /// noise bands differ by 7–10% of the signal's RMS, ENGINEERING.md §3).
        func playReversed(_ tag: String) async throws {
            let output = directory.file("played.wav")
            let result = try await CLI.run(["play", input.path, "--reverse", "--to-file", output.path, "-y"])
            if F == 0 {
                // Nothing to play: an empty rendering, or a refusal in one error line, both agree.
                if result.status != 0 {
                    #expect(result.errorReports.count == 1, "\(tag): \(result.errorText)")
                } else {
                    #expect(try await FFmpegOracle.samples(of: output).isEmpty, "\(tag): rendered samples from an empty file")
                }
                return
            }
            try #require(result.status == 0, "\(tag): \(result.errorText)")
            let played = try await FFmpegOracle.samples(of: output)
            let expected = oracle.reversedSamples
            if oracle.codec == "aac" && !name.contains("nopns") {
                #expect(played.count == expected.count,
                        "\(tag): \(played.count / oracle.channels) frames played, \(expected.count / oracle.channels) expected")
                if played.count == expected.count {
                    let rms = LengthOracle.rms(difference: played, from: expected)
                    #expect(rms.difference <= 0.15 * rms.signal,
                            "\(tag): RMS of the difference \(rms.difference), of the signal \(rms.signal)")
                }
            } else {
                let exact = played == expected
                #expect(exact, "\(tag): \(Self.difference(played, expected, channels: oracle.channels))")
            }
        }

        /// e. `trim --start A --end B` (the middle third, in frames) writes B − A frames by every
        /// account: trim's own summary, `info` of the cut, `convert` of the cut, the cut's decode.
        /// Lossless inputs, MP3 cuts made by copying frames, and copied AAC cuts without noise
        /// substitution equal the oracle's slice; a re-encoded lossy cut is checked for length only.
        func trimMiddle(_ tag: String) async throws {
            let (a, b) = (F / 3, 2 * F / 3)
            guard b > a else { return }  // fewer than 3 frames: no middle third to cut
            let cut = directory.file("middle.\(cutExtension)")
            let result = try await CLI.run(["trim", input.path, cut.path, "--start", "\(a)s", "--end", "\(b)s", "-y", "--verbose"])
            try #require(result.status == 0, "\(tag) \(a)..<\(b): \(result.errorText)")
            let expected = b - a
            #expect(Self.summaryFrames(result.outputText) == expected,
                    "\(tag) \(a)..<\(b): trim says \(String(describing: Self.summaryFrames(result.outputText))) frames: \(result.outputText)")
            let info = try await CLI.run(["info", "--json", cut.path])
            #expect(info.status == 0, "\(tag) \(a)..<\(b): info of the cut: \(info.errorText)")
            if info.status == 0 {
                let frames = try jsonObject(info.outputLines.first ?? "")["frames"] as? Int
                #expect(frames == expected, "\(tag) \(a)..<\(b): info of the cut says \(String(describing: frames)) frames")
            }
            let wav = directory.file("middle-converted.wav")
            let converted = try await CLI.run(["convert", cut.path, wav.path, "-y", "--progress", "none"])
            #expect(converted.status == 0, "\(tag) \(a)..<\(b): convert of the cut: \(converted.errorText)")
            if converted.status == 0 {
                let frames = try await FFmpegOracle.samples(of: wav).count / oracle.channels
                #expect(frames == expected, "\(tag) \(a)..<\(b): convert of the cut gives \(frames) frames")
            }
            let decoded = try await LengthOracle(cut)
            #expect(decoded.frames == expected, "\(tag) \(a)..<\(b): the cut decodes to \(decoded.summary)")
            let copied = result.errorText.contains("copied")
            if oracle.isLossless || (copied && (oracle.codec == "mp3" || (oracle.codec == "aac" && name.contains("nopns")))) {
                let slice = oracle.slice(a..<b)
                let exact = decoded.samples == slice
                #expect(exact,
                        "\(tag) \(a)..<\(b): not the slice: \(Self.difference(decoded.samples, slice, channels: oracle.channels))")
            }
        }

        /// f. `waveform` reports the oracle's frame count in its summary
        /// (`drew IN -> OUT (WIDTHxHEIGHT, N frames)`).
        func waveform(_ tag: String) async throws {
            let output = directory.file("wave.png")
            let result = try await CLI.run(["waveform", input.path, output.path, "-y"])
            try #require(result.status == 0, "\(tag): \(result.errorText)")
            let line = result.outputLines.first { $0.hasPrefix("drew ") } ?? result.outputText
            let frames = Self.waveformFrames(line)
            #expect(frames == F, "\(tag): waveform reports \(frames.map { "\($0) frames" } ?? "no frame count"): \(line)")
        }

        /// g. `trim --tail 1` (inputs of at least 1 s) holds the last round(1 s × rate) frames:
        /// trim's summary and the cut's decode say so; lossless inputs equal the oracle's tail.
        func trimTail(_ tag: String) async throws {
            let rate = oracle.sampleRate
            guard F >= rate else { return }
            let cut = directory.file("tail.\(cutExtension)")
            let result = try await CLI.run(["trim", input.path, cut.path, "--tail", "1", "-y"])
            try #require(result.status == 0, "\(tag): \(result.errorText)")
            #expect(Self.summaryFrames(result.outputText) == rate,
                    "\(tag): trim says \(String(describing: Self.summaryFrames(result.outputText))) frames, \(rate) expected")
            let decoded = try await LengthOracle(cut)
            #expect(decoded.frames == rate, "\(tag): the tail decodes to \(decoded.summary), \(rate) expected")
            if oracle.isLossless {
                let tail = oracle.slice((F - rate)..<F)
                let exact = decoded.samples == tail
                #expect(exact,
                        "\(tag): not the last second: \(Self.difference(decoded.samples, tail, channels: oracle.channels))")
            }
        }

        /// The frame count of a `wrote OUT: S s, N frames, …` summary.
        static func summaryFrames(_ text: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wrote ") }),
                  let match = line.firstMatch(of: /, (\d+) frames/) else { return nil }
            return Int(match.1)
        }

        /// The frame count of a `drew IN -> OUT (WIDTHxHEIGHT, N frames)` summary.
        static func waveformFrames(_ line: String) -> Int? {
            guard let match = line.firstMatch(of: /\(\d+[x×]\d+, (\d+) frames\)/) else { return nil }
            return Int(match.1)
        }

        /// "A frames vs B, first difference at frame K" for a failure message.
        static func difference(_ got: [Int16], _ expected: [Int16], channels: Int) -> String {
            let first = zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(got.count, expected.count)
            return "\(got.count / channels) frames vs \(expected.count / channels) expected, first difference at frame \(first / channels)"
        }
    }

    /// Damaged inputs for the warning test, with the extension their outputs take.
    static let damaged = ["bad-flac-cut-short.flac", "bad-truncated-30pct.mp3", "bad-truncated-30pct.flac",
                          "bad-truncated-30pct-faststart.m4a", "bad-adts-cut-short.aac", "bad-mp3-damaged-frame.mp3",
                          "bad-flac-damaged-frame.flac", "bad-wav-cut-short.wav"]

    @Test("trim, join and compose warn about a damaged input by the input's name, not the output's",
          arguments: damaged, ["trim", "join", "compose"])
    func damagedInputWarningsNameTheInput(_ name: String, _ command: String) async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture(name, into: directory, as: "damaged-input.\(Fixtures.url(name).pathExtension)")
        let output = directory.file("\(command)-output.\(input.pathExtension)")
        let arguments: [String]
        switch command {
        case "trim":
            arguments = ["trim", input.path, output.path, "-y"]
        case "join":
            arguments = ["join", input.path, input.path, "-o", output.path, "-y"]
        default:
            let plan = directory.file("plan.txt")
            try "\"\(input.path)\"\n".write(to: plan, atomically: true, encoding: .utf8)
            arguments = ["compose", plan.path, "-o", output.path, "-y"]
        }
        let result = try await CLI.run(arguments)
        #expect(result.status == 0, "\(name) \(command): \(result.errorText)")
        let warnings = result.warningReports
        #expect(warnings.contains { $0.contains(input.lastPathComponent) },
                "\(name) \(command): no warning names the damaged input: \(result.errorText)")
        // The output may be named by a warning about the output itself (a lossy re-encoding).
        let misnamed = warnings.filter { $0.contains(output.lastPathComponent) && !$0.contains("re-encoded") }
        #expect(misnamed.isEmpty, "\(name) \(command): warnings about the input name the output: \(misnamed)")
    }
}
