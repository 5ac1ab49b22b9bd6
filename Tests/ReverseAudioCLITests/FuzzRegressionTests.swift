import Foundation
import Testing
import TestSupport

/// Inputs the fuzzer found crashing (Tests/Fixtures/fuzz-regressions): each is converted and
/// reversed with every channel choice, and must end in a result or a one-line error, not a trap.
@Suite(.runsProcesses) struct FuzzRegressionTests {
    static var inputs: [String] {
        let folder = Fixtures.directory.appendingPathComponent("fuzz-regressions")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test("no crash on any channel choice, forwards or reversed", arguments: inputs)
    func noCrash(_ name: String) async throws {
        let input = Fixtures.directory.appendingPathComponent("fuzz-regressions/\(name)")
        let directory = try TemporaryDirectory()
        for channels in ["all", "mix", "first", "1"] {
            for reverse in [false, true] {
                let result = try await CLI.convert(input, directory.file("out.wav"), reverse: reverse, ["--channels", channels, "-y"])
                #expect(result.status == 0 || result.status == 1, "\(name) --channels \(channels): exit \(result.status)")
                if result.status != 0 { #expect(result.errorReports.count == 1, "\(result.errorText)") }
            }
        }
    }

    /// Damaged FLAC whose timestamps are not the decode's positions (frames copied into the
    /// stream and frames the decoder rejects, with a STREAMINFO that understates): convert and
    /// its reversal on one and two threads, info and trim all take the decode's frames, and no
    /// command calls every frame intact. `convert` wrote 4032 frames, `info` said 6304, the
    /// decode gives 4608.
    @Test("a FLAC whose timestamps are not its decode's positions: every command takes the decode",
          arguments: inputs.filter { $0.hasPrefix("positions-") })
    func positionsFromTheDecode(_ name: String) async throws {
        let input = Fixtures.directory.appendingPathComponent("fuzz-regressions/\(name)")
        let directory = try TemporaryDirectory()
        let oracle = try await LengthOracle(input)
        #expect(oracle.frames > 0)
        let info = try await CLI.run(["info", "--json", input.path])
        #expect(try jsonObject(info.outputLines.first ?? "")["frames"] as? Int == oracle.frames, "info: \(info.outputText)")
        for threads in ["1", "2"] {
            for reverse in [false, true] {
                let output = directory.file("out-\(threads)-\(reverse).wav")
                let result = try await CLI.convert(input, output, reverse: reverse, ["-y", "--threads", threads])
                #expect(result.status == 0, "\(result.errorText)")
                #expect(!result.errorText.contains("every frame intact"), "\(result.errorText)")
                #expect(try await FFmpegOracle.samples(of: output) == (reverse ? oracle.reversedSamples : oracle.samples),
                        "\(name) --threads \(threads) reverse=\(reverse)")
            }
        }
        let range = (oracle.frames / 4)..<(oracle.frames * 3 / 4)
        let cut = directory.file("cut.flac")
        let trimmed = try await CLI.run(["trim", input.path, cut.path, "--start", "\(range.lowerBound)s", "--end", "\(range.upperBound)s"])
        #expect(trimmed.status == 0, "\(trimmed.errorText)")
        #expect(try await FFmpegOracle.samples(of: cut) == oracle.slice(range), "trim \(range)")
    }

    /// A FLAC packet holding three frames (the fuzzer's): FFmpeg's frame threads decode only the
    /// first, one thread all three. `convert` on one reader (frame threads) wrote 32256 frames,
    /// its reversal 41472 or an error that two decodes differed; every command now takes the
    /// one-thread decode: a packet larger than STREAMINFO's largest frame is decoded alone by
    /// the scan before anything else is, whether or not every frame's CRC is checked.
    @Test("a FLAC packet holding several frames: info, convert and its reversal on one and two threads all take the one-thread decode",
          arguments: inputs.filter { $0.hasPrefix("frame-threads-") })
    func framesOfOnePacket(_ name: String) async throws {
        let input = Fixtures.directory.appendingPathComponent("fuzz-regressions/\(name)")
        let directory = try TemporaryDirectory()
        // The oracle decodes on one thread (FFmpegOracle.decoderThreads).
        let forward = try await FFmpegOracle.samples(of: input)
        let frames = forward.count / 2
        #expect(frames == 41472, "ffmpeg -threads 1 decodes \(frames) frames")
        let info = try await CLI.run(["info", "--json", input.path])
        #expect(try jsonObject(info.outputLines.first ?? "")["frames"] as? Int == frames, "info: \(info.outputText)")
        for threads in ["1", "2"] {
            for reverse in [false, true] {
                let output = directory.file("out-\(threads)-\(reverse).wav")
                let result = try await CLI.convert(input, output, reverse: reverse, ["-y", "--threads", threads])
                #expect(result.status == 0, "\(result.errorText)")
                #expect(try await FFmpegOracle.samples(of: output) == (reverse ? FFmpegOracle.reversedSamples(of: input) : forward),
                        "\(name) --threads \(threads) reverse=\(reverse)")
            }
        }
    }

    /// Damaged files whose frame count fails part-way: the decode after the count must start
    /// where the count's reading began (a seek back to the first packet's timestamp in them
    /// landed past every decodable packet, and the reversal came out empty).
    @Test("a file whose count fails is decoded from its start: forwards and reversed as ffmpeg decodes it",
          arguments: inputs.filter { $0.hasPrefix("rewind-") })
    func decodedFromTheStart(_ name: String) async throws {
        let input = Fixtures.directory.appendingPathComponent("fuzz-regressions/\(name)")
        let directory = try TemporaryDirectory()
        // ffmpeg gives up on a file where most packets fail unless told to take any error rate.
        let tolerant = ["-max_error_rate", "1"]
        let forward = try await FFmpegOracle.samples(of: input, tolerant)
        #expect(!forward.isEmpty)
        for reverse in [false, true] {
            let output = directory.file("out\(reverse).wav")
            let result = try await CLI.convert(input, output, reverse: reverse, ["-y"])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(try await FFmpegOracle.samples(of: output) == (reverse ? FFmpegOracle.reversedSamples(of: input, tolerant) : forward),
                    "\(name) reverse=\(reverse)")
        }
    }
}
