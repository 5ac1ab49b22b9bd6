import Foundation
import Testing
import TestSupport

/// `reverse-audio list`: a folder's supported audio files, one row each, sorted by name.
@Suite(.runsProcesses) struct ListCommandTests {
    @Test("lists supported files by name with duration, format and channels; skips other and hidden files")
    func listsSupportedFiles() async throws {
        let directory = try TemporaryDirectory()
        let files = ["a-tone.mp3": "mp3-cbr64-xing-1ch-22050.mp3", "b-tone.flac": "flac-s16-2ch-44100.flac",
                     "C-tone.WAV": "wav-pcm_s16le-6ch-48000.wav"]
        for (name, fixture) in files { try copyFixture(fixture, into: directory, as: name) }
        try copyFixture("mp3-cbr64-xing-1ch-22050.mp3", into: directory, as: ".hidden.mp3")
        try Data("not audio".utf8).write(to: directory.file("notes.txt"))

        let result = try await CLI.run(["list", directory.url.path])
        #expect(result.status == 0)
        #expect(result.errorText.isEmpty)
        #expect(!result.outputText.contains("notes.txt") && !result.outputText.contains(".hidden"))
        let order = ["a-tone.mp3", "b-tone.flac", "C-tone.WAV"]
        let rowIndices = order.map { name in result.outputLines.firstIndex { $0.contains(name) } }
        #expect(rowIndices.allSatisfy { $0 != nil }, "\(result.outputText)")
        #expect(rowIndices.compactMap { $0 } == rowIndices.compactMap { $0 }.sorted(), "sorted by name")

        for name in order {
            let row = try #require(result.outputLines.first { $0.contains(name) })
            let (_, stream) = try await FFmpegOracle.probe(directory.file(name))
            // The one duration: what the decode gives, frames ÷ rate.
            let channels = try #require(stream["channels"] as? Int)
            let rate = try #require((stream["sample_rate"] as? String).flatMap { Double($0) })
            let duration = await Double(try FFmpegOracle.samples(of: directory.file(name)).count / channels) / rate
            #expect(row.contains(String(format: "%.3f s", duration)), "duration in \(row)")
            #expect(row.contains(try #require(stream["codec_name"] as? String)), "format in \(row)")
            #expect(row.contains("\(try #require(stream["channels"] as? Int)) ("), "channels in \(row)")
        }
    }

    @Test("an unreadable audio file is listed, its reason is one error line, and the run fails")
    func unreadableFile() async throws {
        let directory = try TemporaryDirectory()
        try copyFixture("flac-s16-1ch-8000.flac", into: directory, as: "good.flac")
        try copyFixture("bad-text.mp3", into: directory, as: "broken.mp3")
        let result = try await CLI.run(["list", directory.url.path])
        #expect(result.status != 0)
        #expect(result.outputLines.contains { $0.contains("good.flac") && $0.contains("flac") && $0.contains("1 (") })
        let row = try #require(result.outputLines.first { $0.contains("broken.mp3") }, "\(result.outputText)")
        #expect(row.contains("unreadable"), "\(row)")
        let errors = result.errorText.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count == 1 && errors[0].contains("broken.mp3") && errors[0].contains("not an audio file"), "\(result.errorText)")
    }
}
