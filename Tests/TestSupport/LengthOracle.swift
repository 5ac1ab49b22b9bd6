import Foundation

/// The one length every command must agree on for a file, and the samples that go with it.
///
/// The rule: the length `ffmpeg -nostdin -v error -i F -f s16le -acodec pcm_s16le -` decodes,
/// byte for byte, except that a file in an MP4 container (m4a, m4r, mp4, mov: any codec) follows
/// the container's stated duration, the edit list's end as Apple's players honour it: the decode
/// is cut at the first audio stream's `duration_ts` × `time_base`, rescaled to samples, when
/// that is shorter. A file for which ffprobe states no duration is not cut.
public struct LengthOracle: Sendable {
    public let url: URL
    /// Interleaved 16-bit samples: the decode, cut at the stated duration where the rule says so.
    public let samples: [Int16]
    public let channels: Int
    public let sampleRate: Int
    /// ffprobe's `codec_name` and `format_name`.
    public let codec: String
    public let container: String
    /// Frames the ffmpeg CLI decodes, before any cut.
    public let decodedFrames: Int
    /// The MP4 stream's stated duration in samples (nil for other containers, or none stated).
    public let statedFrames: Int?
    /// ffmpeg's exit status and its standard error: a damaged file may decode in part, with
    /// errors, and a non-zero status after writing samples (69: too many errors).
    public let ffmpegStatus: Int32
    public let ffmpegErrors: String

    /// The oracle's length in frames.
    public var frames: Int { samples.count / max(channels, 1) }

    /// True for the containers of the MP4 family (FFmpeg's `mov,mp4,m4a,3gp,3g2,mj2` demuxer).
    public var isMP4Family: Bool { Self.isMP4Family(container) }

    public static func isMP4Family(_ formatName: String) -> Bool {
        formatName.split(separator: ",").contains { $0 == "mov" || $0 == "mp4" }
    }

    /// True for codecs whose decode is the encoded samples exactly (PCM of any kind, FLAC, ALAC).
    public var isLossless: Bool { codec.hasPrefix("pcm_") || codec == "flac" || codec == "alac" }

    public init(_ url: URL) async throws {
        self.url = url
        let (format, stream) = try await FFmpegOracle.probe(url)
        codec = stream["codec_name"] as? String ?? ""
        container = format["format_name"] as? String ?? ""
        channels = stream["channels"] as? Int ?? 0
        sampleRate = (stream["sample_rate"] as? String).flatMap { Int($0) } ?? 0
        guard channels > 0, sampleRate > 0 else {
            throw FFmpegOracle.Failure(description: "ffprobe gives no channel count or rate for \(url.lastPathComponent)")
        }
        let decode = try await ProcessRunner.run(
            "ffmpeg", ["-nostdin", "-v", "error"] + FFmpegOracle.decoderThreads + ["-i", url.path, "-f", "s16le", "-acodec", "pcm_s16le", "-"])
        guard decode.status == 0 || !decode.standardOutput.isEmpty else {
            throw FFmpegOracle.Failure(description: "ffmpeg decodes nothing of \(url.lastPathComponent): \(decode.errorText)")
        }
        ffmpegStatus = decode.status
        ffmpegErrors = decode.errorText
        var decoded = FFmpegOracle.int16Array(decode.standardOutput)
        decodedFrames = decoded.count / channels
        var stated: Int?
        if Self.isMP4Family(container),
           let units = Self.integer(stream["duration_ts"]),
           let timeBase = stream["time_base"] as? String {
            let parts = timeBase.split(separator: "/").compactMap { Int($0) }
            if parts.count == 2, parts[1] > 0 {
                // av_rescale's rounding: to the nearest, halves away from zero.
                let numerator = units * parts[0] * sampleRate
                stated = (numerator + parts[1] / 2) / parts[1]
            }
        }
        statedFrames = stated
        if let stated, stated >= 0, stated < decodedFrames {
            decoded.removeSubrange((stated * channels)...)
        }
        samples = decoded
    }

    /// The oracle reversed frame by frame (channels keep their order within a frame).
    public var reversedSamples: [Int16] {
        var output = [Int16]()
        output.reserveCapacity(samples.count)
        var frame = frames - 1
        while frame >= 0 {
            output.append(contentsOf: samples[(frame * channels)..<((frame + 1) * channels)])
            frame -= 1
        }
        return output
    }

    /// Frames `range` of the oracle.
    public func slice(_ range: Range<Int>) -> [Int16] {
        Array(samples[(range.lowerBound * channels)..<(range.upperBound * channels)])
    }

    /// A one-line account for failure messages: "F frames (decoded D, stated S)".
    public var summary: String {
        "\(frames) frames (ffmpeg decodes \(decodedFrames)" + (statedFrames.map { ", the MP4 states \($0)" } ?? "") + ")"
    }

    /// The root-mean-square of `a − b` (same length), and of `b`.
    public static func rms(difference a: [Int16], from b: [Int16]) -> (difference: Double, signal: Double) {
        guard !b.isEmpty, a.count == b.count else { return (.infinity, 0) }
        var difference = 0.0
        var signal = 0.0
        for (x, y) in zip(a, b) {
            let d = Double(x) - Double(y)
            difference += d * d
            signal += Double(y) * Double(y)
        }
        return ((difference / Double(b.count)).squareRoot(), (signal / Double(b.count)).squareRoot())
    }

    private static func integer(_ value: Any?) -> Int? {
        if let value = value as? Int { return value }
        if let value = value as? String { return Int(value) }
        if let value = value as? NSNumber { return value.intValue }
        return nil
    }
}
