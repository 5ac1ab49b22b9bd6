import Foundation
import Testing
import TestSupport

/// MP3 streams whose frames change sample rate: two files of different rates end to end (what
/// `cat` makes) and a fuzzed file whose header states another rate than its frames and whose
/// frames change rate and size back and forth. FFmpeg's decoder gives each frame at its own
/// rate and the ffmpeg CLI converts them to the first frame's, so neither a count of the packets
/// nor their timestamps place anything after a change: every command must take the decode.
/// Before, `info` gave the count, a range after the change other frames, `trim` copied frames
/// by the count (past the end), and a reversal on two threads of the fuzzed file came out at
/// 44.1 kHz where the decode is at 8 kHz (its decoder, restarted at the first packet, gave the
/// first frame the last frame's rate).
@Suite(.runsProcesses) struct RateChangeTests {
    static let inputs = ["edge-mp3-joined-rates.mp3", "fuzz-regressions/rates-1-mp3.bin"]

    @Test("info, and convert forwards and reversed on one and two threads, take ffmpeg's decode", arguments: inputs)
    func everyReaderTakesTheDecode(_ name: String) async throws {
        let input = Fixtures.url(name)
        let oracle = try await LengthOracle(input)
        #expect(oracle.frames > 0)
        let info = try await CLI.run(["info", "--json", input.path])
        #expect(try jsonObject(info.outputLines.first ?? "")["frames"] as? Int == oracle.frames, "\(name): info \(info.outputText)")
        let directory = try TemporaryDirectory()
        for threads in ["1", "2"] {
            for reverse in [false, true] {
                let output = directory.file("out-\(threads)-\(reverse).wav")
                let result = try await CLI.convert(input, output, reverse: reverse, ["-y", "--threads", threads])
                try #require(result.status == 0, "\(result.errorText)")
                let same = try await FFmpegOracle.samples(of: output) == (reverse ? oracle.reversedSamples : oracle.samples)
                #expect(same, "\(name) --threads \(threads) reverse=\(reverse)")
            }
        }
    }

    @Test("a range after the first change is the decode's slice on one and two threads; trim and split keep the decode's length",
          arguments: inputs)
    func rangesTakeTheDecode(_ name: String) async throws {
        let input = Fixtures.url(name)
        let oracle = try await LengthOracle(input)
        let range = (oracle.frames * 7 / 10)..<(oracle.frames * 9 / 10)
        let directory = try TemporaryDirectory()
        for threads in ["1", "2"] {
            let part = directory.file("part-\(threads).wav")
            let result = try await CLI.run(["convert", input.path, part.path, "--start", "\(range.lowerBound)s", "--end", "\(range.upperBound)s",
                                      "--threads", threads, "--progress", "none"])
            try #require(result.status == 0, "\(result.errorText)")
            let same = try await FFmpegOracle.samples(of: part) == oracle.slice(range)
            #expect(same, "\(name) \(range) --threads \(threads): not the decode's slice")
        }
        let cut = directory.file("cut.mp3")
        let trimmed = try await CLI.run(["trim", input.path, cut.path, "--start", "\(range.lowerBound)s", "--end", "\(range.upperBound)s"])
        try #require(trimmed.status == 0, "\(trimmed.errorText)")
        #expect(try await FFmpegOracle.samples(of: cut).count == oracle.slice(range).count, "\(name): trim \(range)")
        let pieces = directory.file("pieces")
        let split = try await CLI.run(["split", input.path, "-o", pieces.path, "--at", "\(oracle.frames / 3)s,\(oracle.frames * 2 / 3)s"])
        try #require(split.status == 0, "\(split.errorText)")
        let written = try FileManager.default.contentsOfDirectory(atPath: pieces.path).filter { $0.hasSuffix(".mp3") }.sorted()
        #expect(written.count == 3, "\(written)")
        var total = 0
        for piece in written { total += try await FFmpegOracle.samples(of: pieces.appendingPathComponent(piece)).count }
        #expect(total == oracle.samples.count, "\(name): split's pieces hold \(total / oracle.channels) frames, the decode \(oracle.frames)")
    }
}
