import Foundation
import Testing
import TestSupport

/// `play` of a file with one damaged packet in its middle (the decoder rejects it, so the file
/// decodes one packet shorter than it states): playback reaches the end of what the file decodes,
/// in bounded time, with the warnings `convert` gives, and renders exactly `convert`'s samples.
/// It used to spin for ever at the end of the last chunk (issue 28, item 1).
@Suite(.runsProcesses) struct DamagedPlaybackTests {
    /// The class: a packet damaged in the middle of an MP3 (its packets state the length) and of
    /// a FLAC (STREAMINFO states it), made by `scripts/make-fixtures`.
    static let damaged = ["bad-mp3-damaged-frame.mp3", "bad-flac-damaged-frame.flac"]

    /// Seconds a run may take: the files are 2 s long and render in well under one.
    static let limit = 30

    @Test("play --to-file ends with convert's warnings and samples", arguments: damaged)
    func renderingEndsAsConvertDoes(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url(name)
        let played = directory.file("played.wav")
        let converted = directory.file("converted.wav")
        let play = try await CLI.run(["play", input.path, "--to-file", played.path], within: Self.limit)
        try #require(play.status != CLI.timedOutStatus, "play --to-file still running after \(Self.limit) s")
        try #require(play.status == 0, "play --to-file: \(play.errorText)")
        let convert = try await CLI.run(["convert", input.path, converted.path, "--progress", "none"], within: Self.limit)
        try #require(convert.status == 0, "convert: \(convert.errorText)")
        #expect(!convert.warningReports.isEmpty, "convert says nothing of the damage")
        #expect(play.warningReports == convert.warningReports, "play warns \(play.warningReports), convert \(convert.warningReports)")
        let playedSamples = try await FFmpegOracle.samples(of: played)
        let oracle = try await FFmpegOracle.samples(of: input)
        let same = await playedSamples == (try FFmpegOracle.samples(of: converted)) && playedSamples == oracle
        #expect(same, "play rendered \(playedSamples.count / 2) frames, ffmpeg decodes \(oracle.count / 2)")
        #expect(directory.contents.sorted() == ["converted.wav", "played.wav"])
    }

    @Test("play --device null ends with convert's warnings", arguments: damaged)
    func deviceReachesTheEnd(_ name: String) async throws {
        let input = Fixtures.url(name)
        let play = try await CLI.run(["play", input.path, "--device", "null"], within: Self.limit)
        try #require(play.status != CLI.timedOutStatus, "play --device null still running after \(Self.limit) s")
        try #require(play.status == 0, "play --device null: \(play.errorText)")
        let check = try TemporaryDirectory()
        let convert = try await CLI.run(["convert", input.path, check.file("c.wav").path, "--progress", "none"], within: Self.limit)
        #expect(play.warningReports == convert.warningReports, "play warns \(play.warningReports), convert \(convert.warningReports)")
    }
}
