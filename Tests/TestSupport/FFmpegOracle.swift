import Foundation

/// The ffmpeg and ffprobe command-line tools as the reference our output must equal.
public enum FFmpegOracle {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The decoder on one thread (`-threads 1` before the input): on its frame threads FFmpeg's
    /// FLAC decoder gives only the first frame of a packet holding several (two FLAC files end
    /// to end, junk between frames) and reports a damaged frame only on one thread. The
    /// one-thread decode is every frame the file holds, and the same for every codec otherwise.
    public static let decoderThreads = ["-threads", "1"]

    /// `ffmpeg -threads 1 -i FILE [filters] -f s16le -acodec pcm_s16le -`: the interleaved 16-bit samples.
    ///
    /// An MP4-family input (M4A, M4R, MOV) ends where its container says (the edit list's end,
    /// as Apple's players stop; FFmpeg 5.1 decodes the last packet whole): the decode is cut
    /// there with `atrim=end_sample=N` before any other filter.
    /// - Parameters:
    ///   - arguments: options placed after the input, such as `["-ac", "1"]` or `["-af", "areverse"]`.
    ///   - honouringStatedEnd: false for the ffmpeg CLI's decode as it is.
    public static func samples(of file: URL, _ arguments: [String] = [], honouringStatedEnd: Bool = true) async throws -> [Int16] {
        // A committed fixture never changes: its reference decode is made once per test process,
        // however many suites compare against it.
        guard let key = fixtureKey(file, [String(honouringStatedEnd)] + arguments) else {
            return try await decode(file, arguments, honouringStatedEnd: honouringStatedEnd)
        }
        return try await fixtureDecodes.value(for: key) {
            try await decode(file, arguments, honouringStatedEnd: honouringStatedEnd)
        }
    }

    private static func decode(_ file: URL, _ arguments: [String], honouringStatedEnd: Bool) async throws -> [Int16] {
        var arguments = arguments
        if honouringStatedEnd, let end = try await statedEnd(of: file) {
            if let filter = arguments.firstIndex(of: "-af"), filter + 1 < arguments.count {
                arguments[filter + 1] = "atrim=end_sample=\(end)," + arguments[filter + 1]
            } else {
                arguments = ["-af", "atrim=end_sample=\(end)"] + arguments
            }
        }
        let result = try await ProcessRunner.run(
            "ffmpeg", ["-nostdin", "-v", "error"] + decoderThreads + ["-i", file.path] + arguments + ["-f", "s16le", "-acodec", "pcm_s16le", "-"])
        guard result.status == 0 else {
            throw Failure(description: "ffmpeg failed on \(file.lastPathComponent): \(result.errorText)")
        }
        return int16Array(result.standardOutput)
    }

    /// The decode, reversed by ffmpeg's `areverse` filter. Where that gives less than the decode
    /// (a stream whose frames change format: the CLI builds its filter graph anew at the change
    /// and the frames the old `areverse` held are lost), the decode reversed frame by frame,
    /// what `areverse` gives on the decoded samples.
    public static func reversedSamples(of file: URL, _ arguments: [String] = []) async throws -> [Int16] {
        let reversed = try await samples(of: file, arguments + ["-af", "areverse"])
        let forward = try await samples(of: file, arguments)
        guard reversed.count != forward.count else { return reversed }
        let channels: Int
        if let option = arguments.firstIndex(of: "-ac"), option + 1 < arguments.count, let count = Int(arguments[option + 1]) {
            channels = count
        } else {
            channels = try await probe(file).stream["channels"] as? Int ?? 1
        }
        var frames: [Int16] = []
        frames.reserveCapacity(forward.count)
        var end = forward.count
        while end >= channels {
            frames.append(contentsOf: forward[(end - channels)..<end])
            end -= channels
        }
        return frames
    }

    /// Where an MP4-family file's audio ends by its container's statement (the stream's stated
    /// duration, in samples), or nil for other files.
    public static func statedEnd(of file: URL) async throws -> Int64? {
        // Most inputs are plainly not MP4: no ffprobe for them (a third of the suite's processes).
        guard !isSurelyNotMP4(file) else { return nil }
        guard let key = fixtureKey(file, []) else { return try await probedEnd(of: file) }
        return try await fixtureEnds.value(for: key) { try await probedEnd(of: file) }
    }

    /// The reference decodes and stated ends of committed fixtures made so far, by file and arguments.
    private static let fixtureDecodes = OnceCache<[Int16]>()
    private static let fixtureEnds = OnceCache<Int64?>()

    /// A memo key for `file` with `arguments` when `file` is a committed fixture; nil otherwise
    /// (a test's own output may be written again under the same name).
    private static func fixtureKey(_ file: URL, _ arguments: [String]) -> String? {
        let path = file.standardizedFileURL.path
        guard path.hasPrefix(Fixtures.directory.standardizedFileURL.path + "/") else { return nil }
        return ([path] + arguments).joined(separator: "\u{0}")
    }

    /// True when the file's first bytes are another container's signature (ID3 or an MPEG
    /// audio sync, FLAC, RIFF, Ogg, EBML, CAF, AIFF, ADTS), so it cannot be an MP4-family file
    /// (whose first bytes are a box's size and type); false when unsure, and ffprobe decides.
    public static func isSurelyNotMP4(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4), head.count == 4 else { return false }
        let bytes = [UInt8](head)
        let signatures: [[UInt8]] = [Array("ID3".utf8), Array("fLaC".utf8), Array("RIFF".utf8), Array("RF64".utf8),
                                     Array("OggS".utf8), [0x1A, 0x45, 0xDF, 0xA3], Array("caff".utf8), Array("FORM".utf8)]
        if signatures.contains(where: { bytes.starts(with: $0) }) { return true }
        // An MPEG audio or ADTS frame: 11 (or 12) sync bits.
        return bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0
    }

    private static func probedEnd(of file: URL) async throws -> Int64? {
        let result = try await ProcessRunner.run(
            "ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration_ts,time_base,sample_rate:format=format_name",
                        "-of", "default=noprint_wrappers=1", file.path])
        guard result.outputText.contains("format_name=mov") else { return nil }
        var fields: [String: String] = [:]
        for line in result.outputText.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let duration = fields["duration_ts"].flatMap(Int64.init), duration > 0,
              let rate = fields["sample_rate"].flatMap(Int64.init),
              let base = fields["time_base"]?.split(separator: "/").compactMap({ Int64($0) }), base.count == 2, base[1] > 0
        else { return nil }
        return (duration * base[0] * rate + base[1] / 2) / base[1]
    }

    /// ffprobe's view of the file: `format` and the first audio `stream`, as JSON objects.
    public static func probe(_ file: URL) async throws -> (format: [String: Any], stream: [String: Any]) {
        let result = try await ProcessRunner.run(
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

/// Values made once and kept for the test process (made outside the lock: two tests asking at
/// once may both make one, and the same value is kept).
