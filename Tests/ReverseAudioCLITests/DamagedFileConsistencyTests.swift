import Foundation
import Testing
import TestSupport

/// Files damaged in the middle or cut short, as disks, networks and interrupted copies leave
/// them (issue 28, item 7): every command takes the length and the positions of the ffmpeg CLI's
/// decode (a packet the decoder rejects moves every later frame earlier), and every command says
/// the same about the damage. The lengths themselves are checked for every command by
/// ``ConsistencyTests`` on the same fixtures.
@Suite(.runsProcesses) struct DamagedFileConsistencyTests {
    /// One packet rejected in the middle (MP3: its side information; FLAC: a subframe), a WAV and
    /// an MP3 cut short, a FLAC cut inside a frame.
    static let damaged = ["bad-mp3-damaged-frame.mp3", "bad-flac-damaged-frame.flac", "bad-wav-cut-short.wav",
                          "bad-truncated-30pct.mp3", "bad-flac-cut-short.flac"]

    /// The warnings a command prints about `input`.
    static func warnings(_ arguments: [String], _ label: String) async throws -> [String] {
        let result = try await CLI.run(arguments, within: 60)
        #expect(result.status == 0, "\(label): \(result.errorText)")
        return result.warningReports.filter { !$0.contains("re-encoded") }.sorted()
    }

    @Test("info, convert, convert --reverse, play --reverse and waveform warn alike, and do warn", arguments: damaged)
    func everyCommandWarnsAlike(_ name: String) async throws {
        let input = Fixtures.url(name).path
        let directory = try TemporaryDirectory()
        let convert = try await Self.warnings(["convert", input, directory.file("c.wav").path, "--progress", "none"], "convert")
        #expect(!convert.isEmpty, "\(name): convert says nothing of the damage")
        let others = await [
            ("info", try Self.warnings(["info", input], "info")),
            ("info --json", try Self.warnings(["info", "--json", input], "info --json")),
            ("convert --reverse", try Self.warnings(["convert", input, directory.file("r.wav").path, "--reverse", "--progress", "none"],
                                                    "convert --reverse")),
            ("play --reverse", try Self.warnings(["play", input, "--reverse", "--to-file", directory.file("p.wav").path], "play")),
            ("waveform", try Self.warnings(["waveform", input, directory.file("w.png").path], "waveform")),
        ]
        for (label, warnings) in others {
            #expect(warnings == convert, "\(name): \(label) warns \(warnings), convert \(convert)")
        }
    }

    @Test("damage in the middle of a FLAC is not called a truncation, nor its length the header's")
    func flacDamagedInTheMiddle() async throws {
        let input = Fixtures.url("bad-flac-damaged-frame.flac").path
        let directory = try TemporaryDirectory()
        let convert = try await CLI.run(["convert", input, directory.file("c.wav").path, "--progress", "none"])
        #expect(!convert.warningReports.isEmpty)
        #expect(!convert.errorText.contains("truncated"), "\(convert.errorText)")
        let info = try await CLI.run(["info", input])
        #expect(!info.outputText.contains("as the header states"), "\(info.outputText)")
    }

    @Test("a range after the damage is the same frames of the whole decode: convert --start --end and trim",
          arguments: ["bad-mp3-damaged-frame.mp3", "bad-flac-damaged-frame.flac"])
    func rangeAfterTheDamage(_ name: String) async throws {
        let input = Fixtures.url(name)
        let oracle = try await LengthOracle(input)
        let directory = try TemporaryDirectory()
        // The damage is near the middle (1 s); the range starts well after it.
        let range = (oracle.frames * 13 / 20)..<(oracle.frames * 19 / 20)
        let part = directory.file("part.wav")
        let converted = try await CLI.run(["convert", input.path, part.path, "--start", "\(range.lowerBound)s", "--end", "\(range.upperBound)s",
                                     "--progress", "none"])
        try #require(converted.status == 0, "\(converted.errorText)")
        let partSame = try await FFmpegOracle.samples(of: part) == oracle.slice(range)
        #expect(partSame, "\(name) \(range): convert --start --end is not the oracle's slice")
        let cut = directory.file("cut.\(input.pathExtension)")
        let trimmed = try await CLI.run(["trim", input.path, cut.path, "--start", "\(range.lowerBound)s", "--end", "\(range.upperBound)s"])
        try #require(trimmed.status == 0, "\(trimmed.errorText)")
        let cutSamples = try await FFmpegOracle.samples(of: cut)
        #expect(cutSamples.count == oracle.slice(range).count, "\(name) \(range): the cut decodes to \(cutSamples.count / 2) frames")
        if oracle.isLossless {
            let cutSame = cutSamples == oracle.slice(range)
            #expect(cutSame, "\(name) \(range): trim is not the oracle's slice")
        }
    }

    @Test("MP3s with random 4-byte flips in their frames: info, convert, a range and play --reverse agree with ffmpeg",
          arguments: 0..<10)
    func randomFlips(_ seed: Int) async throws {
        let source = try Data(contentsOf: Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3"))
        var bytes = [UInt8](source)
        var random = SplitMix(seed: UInt64(seed) &+ 2028)
        // After the ID3 tag and the Xing frame (the first 2 KB): the frames of the audio.
        for _ in 0..<4 {
            let at = 2048 + Int(random.next() % UInt64(bytes.count - 2048 - 4))
            for offset in at..<(at + 4) { bytes[offset] ^= 0xFF }
        }
        let directory = try TemporaryDirectory()
        let input = directory.file("flipped.mp3")
        try Data(bytes).write(to: input)
        let oracle = try await LengthOracle(input)
        let tag = "seed \(seed), oracle \(oracle.summary)"

        let info = try await CLI.run(["info", "--json", input.path])
        try #require(info.status == 0, "\(tag): \(info.errorText)")
        #expect(try jsonObject(info.outputLines.first ?? "")["frames"] as? Int == oracle.frames, "\(tag): info")

        let whole = directory.file("whole.wav")
        let converted = try await CLI.run(["convert", input.path, whole.path, "--progress", "none"])
        try #require(converted.status == 0, "\(tag): \(converted.errorText)")
        let wholeSame = try await FFmpegOracle.samples(of: whole) == oracle.samples
        #expect(wholeSame, "\(tag): convert")

        let range = (oracle.frames / 2)..<(oracle.frames * 9 / 10)
        let part = directory.file("part.wav")
        let ranged = try await CLI.run(["convert", input.path, part.path, "--start", "\(range.lowerBound)s", "--end", "\(range.upperBound)s",
                                  "--progress", "none"])
        try #require(ranged.status == 0, "\(tag): \(ranged.errorText)")
        let partSame = try await FFmpegOracle.samples(of: part) == oracle.slice(range)
        #expect(partSame, "\(tag): convert --start \(range.lowerBound)s --end \(range.upperBound)s")

        let played = directory.file("played.wav")
        let play = try await CLI.run(["play", input.path, "--reverse", "--to-file", played.path], within: 60)
        try #require(play.status == 0, "\(tag): \(play.errorText)")
        let playedSamples = try await FFmpegOracle.samples(of: played)
        let playedSame = playedSamples == oracle.reversedSamples
        #expect(playedSame, "\(tag): play --reverse rendered \(playedSamples.count / 2) frames")
    }
}
