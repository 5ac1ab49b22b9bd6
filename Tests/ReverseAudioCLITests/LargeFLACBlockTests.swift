import Foundation
import Testing
import TestSupport

/// FLAC at 96 kHz with 65535-sample blocks of 24-bit noise: frames of about 190 KB, after which
/// FFmpeg 5.1's FLAC demuxer reads nothing more once it has been sought in (a seek by time fails
/// and leaves it at the end; a seek by byte reads nothing either). Ranges failed ("the range
/// starts at frame 96000, after the end of the file") and `waveform` said "seeking failed"
/// (issue 28, item 9). Every command is checked against the ffmpeg CLI's decode. The file is
/// made at test time: a few seconds of it are too big to commit.
@Suite(.runsProcesses) struct LargeFLACBlockTests {
    static func input() async throws -> URL {
        try await SignalFiles.sharedNoise("flac-65535-96k.flac", seconds: 3, rate: 96000,
                               codecArguments: ["-c:a", "flac", "-frame_size", "65535", "-sample_fmt", "s32"])
    }

    @Test("info, convert --start --end, trim, convert --reverse, play --reverse and waveform agree with ffmpeg")
    func everyCommand() async throws {
        let input = try await Self.input()
        let oracle = try await LengthOracle(input)
        let directory = try TemporaryDirectory()
        let range = 96000..<192000

        let info = try await CLI.run(["info", "--json", input.path])
        try #require(info.status == 0, "info: \(info.errorText)")
        #expect(try jsonObject(info.outputLines.first ?? "")["frames"] as? Int == oracle.frames)

        let part = directory.file("part.wav")
        let converted = try await CLI.run(["convert", input.path, part.path, "--start", "1", "--end", "2", "--progress", "none"])
        try #require(converted.status == 0, "convert --start 1 --end 2: \(converted.errorText)")
        let partSame = try await FFmpegOracle.samples(of: part) == oracle.slice(range)
        #expect(partSame, "convert --start 1 --end 2 is not the oracle's slice")

        let cut = directory.file("cut.flac")
        let trimmed = try await CLI.run(["trim", input.path, cut.path, "--start", "1", "--end", "2"])
        try #require(trimmed.status == 0, "trim: \(trimmed.errorText)")
        let cutSame = try await FFmpegOracle.samples(of: cut) == oracle.slice(range)
        #expect(cutSame, "trim --start 1 --end 2 is not the oracle's slice")

        let reversed = directory.file("reversed.wav")
        let reversal = try await CLI.run(["convert", input.path, reversed.path, "--reverse", "--progress", "none"])
        try #require(reversal.status == 0, "convert --reverse: \(reversal.errorText)")
        let reversedSame = try await FFmpegOracle.samples(of: reversed) == oracle.reversedSamples
        #expect(reversedSame, "convert --reverse is not ffmpeg -af areverse")

        let played = directory.file("played.wav")
        let play = try await CLI.run(["play", input.path, "--reverse", "--to-file", played.path], within: 120)
        try #require(play.status == 0, "play --reverse: \(play.errorText)")
        let playedSame = try await FFmpegOracle.samples(of: played) == oracle.reversedSamples
        #expect(playedSame, "play --reverse is not ffmpeg -af areverse")

        for picture in ["wave.png", "wave.dat"] {
            let waveform = try await CLI.run(["waveform", input.path, directory.file(picture).path])
            #expect(waveform.status == 0, "waveform \(picture): \(waveform.errorText)")
            #expect(waveform.errorReports.isEmpty, "waveform \(picture): \(waveform.errorText)")
        }
        let rangedWave = try await CLI.run(["waveform", input.path, directory.file("part.png").path, "--start", "1", "--end", "2"])
        #expect(rangedWave.status == 0, "waveform --start 1 --end 2: \(rangedWave.errorText)")
        #expect(rangedWave.outputText.contains("\(range.count) frames"), "\(rangedWave.outputText)")
    }
}
