import Foundation

/// A file decoded by the ffmpeg CLI in its own sample format (s16, s32, flt, dbl, u8, packed),
/// with what ffprobe says of that format: the oracle for edits that must copy samples as-is.
public struct NativePCM: Sendable {
    /// The interleaved decoded bytes.
    public let bytes: [UInt8]
    /// Bytes of one frame (all channels).
    public let frameBytes: Int
    /// The byte a silent sample is made of (0x80 for unsigned 8-bit).
    public let zero: UInt8
    /// ffprobe's sample format without the planar suffix ("s16", "s32", "flt", "dbl", "u8").
    public let format: String
    /// ffprobe's bits_per_raw_sample, when it states one.
    public let bits: String?
    /// The raw format the ffmpeg CLI writes these samples as ("s16le").
    public let rawFormat: String

    /// Frames decoded.
    public var frames: Int { bytes.count / frameBytes }

    /// The bytes of frames `range`.
    public func slice(_ range: Range<Int>) -> [UInt8] {
        Array(bytes[(range.lowerBound * frameBytes)..<(range.upperBound * frameBytes)])
    }

    /// The bytes of frames `range`, last frame first (what `areverse` gives).
    public func reversedSlice(_ range: Range<Int>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(range.count * frameBytes)
        for frame in range.reversed() { result += bytes[(frame * frameBytes)..<((frame + 1) * frameBytes)] }
        return result
    }

    /// `count` frames of digital silence.
    public func silence(_ count: Int) -> [UInt8] { [UInt8](repeating: zero, count: count * frameBytes) }

    /// `url` decoded by ffmpeg in its own format, with `arguments` (filters) after the input.
    public static func decode(_ url: URL, _ arguments: [String] = []) async throws -> NativePCM {
        let layout = try await Layout(url)
        return try await NativePCM(layout, decoded: run(FFmpegOracle.decoderThreads + ["-i", url.path] + arguments, raw: layout.raw))
    }

    /// `urls` (all in `first`'s format) decoded by one ffmpeg process and put end to end with
    /// the concat filter.
    public static func decodeConcatenated(_ urls: [URL]) async throws -> NativePCM {
        guard let first = urls.first else { throw FFmpegOracle.Failure(description: "nothing to concatenate") }
        let layout = try await Layout(first)
        let inputs = urls.flatMap { FFmpegOracle.decoderThreads + ["-i", $0.path] }
        let graph = urls.indices.map { "[\($0):a]" }.joined() + "concat=n=\(urls.count):v=0:a=1"
        return try await NativePCM(layout, decoded: run(inputs + ["-filter_complex", graph], raw: layout.raw))
    }

    private struct Layout {
        let raw: String
        let size: Int
        let channels: Int
        let format: String
        let bits: String?

        init(_ url: URL) async throws {
            let stream = try await FFmpegOracle.probe(url).stream
            format = (stream["sample_fmt"] as? String ?? "").replacingOccurrences(of: "p", with: "")
            (raw, size) = switch format {
            case "u8": ("u8", 1)
            case "s16": ("s16le", 2)
            case "flt": ("f32le", 4)
            case "dbl": ("f64le", 8)
            default: ("s32le", 4)
            }
            channels = stream["channels"] as? Int ?? 1
            bits = stream["bits_per_raw_sample"] as? String
        }
    }

    private init(_ layout: Layout, decoded: [UInt8]) {
        bytes = decoded
        frameBytes = layout.size * layout.channels
        zero = layout.format == "u8" ? 0x80 : 0
        format = layout.format
        bits = layout.bits
        rawFormat = layout.raw
    }

    private static func run(_ arguments: [String], raw: String) async throws -> [UInt8] {
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error"] + arguments + ["-f", raw, "-"])
        guard result.status == 0 else {
            throw FFmpegOracle.Failure(description: "ffmpeg failed: \(result.errorText)")
        }
        return [UInt8](result.standardOutput)
    }
}
