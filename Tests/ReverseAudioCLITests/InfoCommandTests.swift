import Foundation
import Testing
import TestSupport

/// `reverse-audio info`: ffprobe's facts plus the exact decoded length.
@Suite(.runsProcesses) struct InfoCommandTests {
    static let inputs = Fixtures.matrix.map(Fixtures.url) + Fixtures.audioFiles
    static let keys = ["path", "container", "codec", "sampleRate", "channels", "channelLayout", "durationSeconds", "frames"]

    /// Each line of standard output as a JSON object.
    static func objects(_ result: ProcessResult) throws -> [[String: Any]] {
        try result.outputLines.map(jsonObject)
    }

    @Test("info --json agrees with ffprobe, and frames with ffmpeg's decode", arguments: inputs)
    func jsonAgreesWithFFprobe(_ input: URL) async throws {
        let result = try await CLI.run(["info", "--json", input.path])
        #expect(result.status == 0)
        #expect(result.errorText.isEmpty)
        let objects = try Self.objects(result)
        try #require(objects.count == 1, "one line per file")
        let info = objects[0]
        for key in Self.keys { #expect(info.keys.contains(key), "key \(key) missing") }

        let (format, stream) = try await FFmpegOracle.probe(input)
        #expect(info["path"] as? String == input.path)
        #expect(info["container"] as? String == format["format_name"] as? String)
        #expect(info["codec"] as? String == stream["codec_name"] as? String)
        #expect(info["sampleRate"] as? Int == (stream["sample_rate"] as? String).flatMap { Int($0) })
        let channels = try #require(stream["channels"] as? Int)
        #expect(info["channels"] as? Int == channels)
        if let layout = stream["channel_layout"] as? String, layout != "unknown" {
            #expect(info["channelLayout"] as? String == layout)
        } else {
            #expect(info["channelLayout"] is NSNull, "no layout must be null, got \(String(describing: info["channelLayout"]))")
        }
        // The container's figure is ffprobe's; the duration is the decode's length, frames ÷ rate.
        let containerDuration = try #require((format["duration"] as? String).flatMap { Double($0) })
        let stated = try #require(info["containerDurationSeconds"] as? Double)
        #expect(abs(stated - containerDuration) <= 1e-5, "container duration \(stated) vs ffprobe \(containerDuration)")
        let frames = try await FFmpegOracle.samples(of: input).count / channels
        #expect(info["frames"] as? Int == frames, "frames \(String(describing: info["frames"])) vs decoded \(frames)")
        let rate = try #require(info["sampleRate"] as? Double)
        #expect(abs((info["durationSeconds"] as? Double ?? -1) - Double(frames) / rate) < 1e-9)
        #expect(info["durationIsEstimate"] as? Bool == false)
    }

    @Test("human-readable info names the codec and the sample rate",
          arguments: ["mp3-cbr32-xing-1ch-8000.mp3", "flac-s24-2ch-96000.flac", "m4a-aac-6ch-48000.m4a"])
    func humanReadable(_ name: String) async throws {
        let input = Fixtures.url(name)
        let result = try await CLI.run(["info", input.path])
        let stream = try await FFmpegOracle.probe(input).stream
        #expect(result.status == 0)
        #expect(result.outputText.contains(try #require(stream["codec_name"] as? String)))
        #expect(result.outputText.contains(try #require(stream["sample_rate"] as? String)))
    }

    @Test("a bad file among good ones: the good ones are printed, one error names the bad one",
          arguments: ["bad-text.mp3", "bad-empty.wav", "bad-noaudio.mp4", "no-such-file.wav"])
    func badAmongGood(_ bad: String) async throws {
        let good = ["flac-s16-1ch-8000.flac", "m4a-aac-2ch-44100.m4a"].map { Fixtures.url($0).path }
        let result = try await CLI.run(["info", "--json", good[0], Fixtures.url(bad).path, good[1]])
        expectFailure(result, naming: bad)
        #expect(try Self.objects(result).map { $0["path"] as? String } == good)
    }
}
