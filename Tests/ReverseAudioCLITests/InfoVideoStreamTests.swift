import Foundation
import Testing
import TestSupport

/// `info` on a video file: every video stream (codec, size, frame rate, duration) beside the
/// audio, and the audio stream's own bit rate, as ffprobe reports them (issue 20).
@Suite(.runsProcesses) struct InfoVideoStreamTests {
    @Test("info --json lists each video stream as ffprobe does, and the audio stream's own bit rate",
          arguments: ["h264-25fps-51aac.mov", "h264-30fps-bframes-aac.mp4", "h264-vfr-pcm.mkv"])
    func videoStreams(_ name: String) async throws {
        let file = Fixtures.video(name)
        let result = try await CLI.run(["info", "--json", file.path])
        #expect(result.status == 0, "\(result.errorText)")
        let info = try jsonObject(result.outputLines.first ?? "")
        let listed = try #require(info["videoStreams"] as? [[String: Any]], "\(result.outputText)")
        let probed = try await VideoOracle.streams(of: file)
        let videos = probed.filter { $0["codec_type"] as? String == "video" }
        #expect(listed.count == videos.count, "\(listed.count) listed, ffprobe has \(videos.count)")
        for (ours, theirs) in zip(listed, videos) {
            #expect(ours["index"] as? Int == theirs["index"] as? Int)
            #expect(ours["codec"] as? String == theirs["codec_name"] as? String)
            #expect(ours["width"] as? Int == theirs["width"] as? Int)
            #expect(ours["height"] as? Int == theirs["height"] as? Int)
            let rate = (theirs["avg_frame_rate"] as? String).flatMap(Self.fraction)
            if let rate, rate > 0 {
                let ourRate = try #require(ours["frameRate"] as? Double)
                #expect(abs(ourRate - rate) < 1e-6, "frame rate \(ourRate) vs \(rate)")
            }
            if let duration = (theirs["duration"] as? String).flatMap(Double.init) {
                let ourDuration = try #require(ours["durationSeconds"] as? Double)
                #expect(abs(ourDuration - duration) < 1e-3, "duration \(ourDuration) vs \(duration)")
            }
        }
        let audio = try #require(probed.first { $0["codec_type"] as? String == "audio" })
        if let bitRate = (audio["bit_rate"] as? String).flatMap(Int.init) {
            #expect(info["streamBitRate"] as? Int == bitRate, "\(String(describing: info["streamBitRate"])) vs \(bitRate)")
        }
    }

    @Test("info's text names the video stream and the audio stream's bit rate")
    func textListsVideo() async throws {
        let result = try await CLI.run(["info", Fixtures.video("h264-25fps-51aac.mov").path])
        #expect(result.status == 0, "\(result.errorText)")
        let video = try #require(result.outputLines.first { $0.hasPrefix("  video ") }, "\(result.outputText)")
        #expect(video.contains("h264") && video.contains("96×64") && video.contains("25 fps"), "\(video)")
        #expect(result.outputText.contains("96 kb/s (the audio stream)"), "\(result.outputText)")
    }

    @Test("an audio file lists no video stream")
    func audioHasNone() async throws {
        let result = try await CLI.run(["info", "--json", Fixtures.url("flac-s16-2ch-44100.flac").path])
        let info = try jsonObject(result.outputLines.first ?? "")
        #expect((info["videoStreams"] as? [Any])?.isEmpty == true, "\(result.outputText)")
    }

    /// "25/1" → 25.
    static func fraction(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] != 0 else { return nil }
        return parts[0] / parts[1]
    }
}
