import Foundation

/// The ffmpeg and ffprobe command-line tools as the reference our output must equal.
public enum FFmpegOracle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// `ffmpeg -i FILE [filters] -f s16le -acodec pcm_s16le -`: the interleaved 16-bit samples.
    /// - Parameter arguments: options placed after the input, such as `["-ac", "1"]` or
    ///   `["-af", "areverse"]`.
    public static func samples(of file: URL, _ arguments: [String] = []) throws -> [Int16] {
        let result = try ProcessRunner.run(
            "ffmpeg", ["-nostdin", "-v", "error", "-i", file.path] + arguments + ["-f", "s16le", "-acodec", "pcm_s16le", "-"])
        guard result.status == 0 else {
            throw Failure(description: "ffmpeg failed on \(file.lastPathComponent): \(result.errorText)")
        }
        return int16Array(result.standardOutput)
    }

    /// The decode, reversed by ffmpeg's `areverse` filter.
    public static func reversedSamples(of file: URL, _ arguments: [String] = []) throws -> [Int16] {
        try samples(of: file, arguments + ["-af", "areverse"])
    }

    /// ffprobe's view of the file: `format` and the first audio `stream`, as JSON objects.
    public static func probe(_ file: URL) throws -> (format: [String: Any], stream: [String: Any]) {
        let result = try ProcessRunner.run(
            "ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams",
                        "-select_streams", "a:0", file.path])
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any],
              let format = object["format"] as? [String: Any],
              let stream = (object["streams"] as? [[String: Any]])?.first
        else {
            throw Failure(description: "ffprobe failed on \(file.lastPathComponent): \(result.errorText)")
        }
        return (format, stream)
    }

    /// Channel `channel` of interleaved `samples` with `channelCount` channels.
    public static func channel(_ channel: Int, of samples: [Int16], channelCount: Int) -> [Int16] {
        stride(from: channel, to: samples.count, by: channelCount).map { samples[$0] }
    }

    public static func int16Array(_ data: Data) -> [Int16] {
        data.withUnsafeBytes { raw in
            Array(raw.bindMemory(to: Int16.self)).map { Int16(littleEndian: $0) }
        }
    }
}
