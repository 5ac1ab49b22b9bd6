import Foundation
import Testing
import ReverseAudio
import ReverseAudioBatch
import TestSupport

/// One duration everywhere: `info`, `list`, `convert` and `reverse` report the decode's length.
@Suite(.runsProcesses) struct DurationTests {
    @Test("info, list, convert and reverse agree on every fixture's duration, and it is the decode's frames ÷ rate",
          arguments: Fixtures.decodable.filter { !$0.hasPrefix("edge-empty") && !$0.hasPrefix("edge-wrong") })
    func agree(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture(name, into: directory)
        let info = try await jsonObject(try CLI.run(["info", "--json", input.path]).outputText)
        let rate = try #require(info["sampleRate"] as? Int)
        let channels = try #require(info["channels"] as? Int)
        let decoded = try await FFmpegOracle.samples(of: input).count / channels
        let seconds = String(format: "%.3f s", Double(decoded) / Double(rate))
        #expect(abs((info["durationSeconds"] as? Double ?? -1) - Double(decoded) / Double(rate)) < 1e-9, "info")
        if SupportedAudioFiles.extensions.contains(input.pathExtension.lowercased()) {
            let list = try await CLI.run(["list", directory.url.path])
            #expect(list.outputLines.contains { $0.contains(name) && $0.contains(seconds) }, "list: \(list.outputText)")
        }
        let convert = try await CLI.convert(input, directory.file("out.wav"), reverse: false)
        #expect(convert.outputText.contains(": \(seconds),"), "convert: \(convert.outputText)")
        let reverse = try await CLI.run(["reverse", input.path, "-o", directory.file("rev").path])
        #expect(reverse.outputLines.contains { $0.contains(name) && $0.contains(seconds) }, "reverse: \(reverse.outputText)")
    }

    @Test("a header that misstates the length: info says where its figure comes from; convert uses the decode")
    func wrongHeader() async throws {
        let input = Fixtures.url("edge-wrong-length-long.flac")
        // STREAMINFO states 10000 frames more than the stream holds: the figure is the packets'
        // (info once called it the header's, "as the header states", beside the decode's count).
        let info = try await jsonObject(try CLI.run(["info", "--json", input.path]).outputText)
        #expect(info["framesFrom"] as? String == "packets")
        #expect(info["frames"] as? Int == 22050)
        let text = try await CLI.run(["info", input.path]).outputText
        #expect(!text.contains("as the header states"), "\(text)")
        let directory = try TemporaryDirectory()
        let convert = try await CLI.convert(input, directory.file("out.wav"), reverse: false)
        #expect(convert.warningReports.contains { $0.contains("header") }, "\(convert.errorText)")
    }
}
