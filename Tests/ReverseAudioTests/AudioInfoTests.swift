import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// The probe against ffprobe, and the exact frame count against ffmpeg's decode.
@Suite(.runsProcesses) struct AudioInfoTests {
    @Test("agrees with ffprobe; frames equal the decoded length", arguments: Fixtures.matrix.map(Fixtures.url) + Fixtures.audioFiles)
    func agreesWithFFprobe(_ input: URL) async throws {
        let info = try AudioInfo.read(from: input)
        let probe = try await FFmpegOracle.probe(input)
        #expect(info.container == probe.format["format_name"] as? String)
        #expect(info.codec == probe.stream["codec_name"] as? String)
        #expect(String(info.sampleRate) == probe.stream["sample_rate"] as? String)
        #expect(info.channelCount == probe.stream["channels"] as? Int)
        let layout = probe.stream["channel_layout"] as? String
        #expect(info.channelLayout == (layout == "unknown" ? nil : layout))
        if let duration = (probe.format["duration"] as? String).flatMap(Double.init) {
            #expect(abs((info.containerDuration ?? -1) - duration) < 1e-5)
        }
        #expect(info.bitRate.map(String.init) == (probe.format["bit_rate"] as? String ?? probe.stream["bit_rate"] as? String))
        let decoded = try await FFmpegOracle.samples(of: input).count / info.channelCount
        #expect(info.frames == Int64(decoded))
        #expect(info.duration == Double(decoded) / Double(info.sampleRate) && !info.durationIsEstimate)
    }

    @Test("JSON has every key, with null for what is unknown")
    func json() throws {
        // A plain PCM WAV gives a channel count but names no layout.
        let info = try AudioInfo.read(from: Fixtures.url("wav-pcm_s16le-1ch-8000.wav"))
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(info)) as? [String: Any]
        for key in ["path", "container", "codec", "sampleRate", "channels", "channelLayout", "durationSeconds", "frames"] {
            #expect(object?.keys.contains(key) == true, "missing \(key)")
        }
        #expect(object?["channelLayout"] is NSNull)
        #expect(object?["frames"] as? Int == 8000)
    }
}
