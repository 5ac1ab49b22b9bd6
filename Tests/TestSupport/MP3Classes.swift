import Foundation

/// MP3 files of every class a lossless cut must handle, made at test time from one noisy,
/// music-like signal by the `lame` CLI and by ffmpeg's libmp3lame: the bit reservoir is in use
/// almost everywhere, so most cuts need the reservoir repaired.
public enum MP3Classes {
    /// One kind of MP3.
    public struct Kind: Sendable, CustomStringConvertible {
        /// A short name ("lame -V5").
        public let name: String
        /// Which encoder: "lame" (the CLI) or "ffmpeg" (libmp3lame behind FFmpeg's mp3 muxer).
        let encoder: String
        let arguments: [String]
        let channels: Int
        let rate: Int
        /// What to do to the encoded file before use: "vbri" puts a Fraunhofer VBRI frame in
        /// front of a stream that has no tag frame.
        let patch: String?

        public var description: String { name }
    }

    /// The classes the random-cut tests take 100 cuts of: 128 kb/s, -V5, -V9 and 64 kb/s mono
    /// from both encoders, and a file without any Xing/LAME frame.
    public static let main: [Kind] = [
        Kind(name: "lame -b 128", encoder: "lame", arguments: ["-b", "128"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "lame -V5", encoder: "lame", arguments: ["-V5"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "lame -V9", encoder: "lame", arguments: ["-V9"], channels: 2, rate: 44100, patch: nil),  // resamples to 22.05 kHz: MPEG-2
        Kind(name: "lame -b 64 mono", encoder: "lame", arguments: ["-b", "64"], channels: 1, rate: 44100, patch: nil),
        Kind(name: "ffmpeg 128k", encoder: "ffmpeg", arguments: ["-b:a", "128k"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "ffmpeg -q:a 5", encoder: "ffmpeg", arguments: ["-q:a", "5"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "ffmpeg -q:a 9", encoder: "ffmpeg", arguments: ["-q:a", "9"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "ffmpeg 64k mono", encoder: "ffmpeg", arguments: ["-b:a", "64k"], channels: 1, rate: 44100, patch: nil),
        Kind(name: "lame -t (no tag frame)", encoder: "lame", arguments: ["-t", "-b", "128"], channels: 2, rate: 44100, patch: nil),
    ]

    /// Other classes, fewer cuts each: MPEG-2 and 2.5, CRC-protected frames, ABR, 32 and 48 kHz,
    /// dual channel, a VBRI tag frame, a tagless ffmpeg file.
    public static let more: [Kind] = [
        Kind(name: "lame -p -V6 22.05 kHz (MPEG-2, CRC)", encoder: "lame", arguments: ["-p", "-V6", "--resample", "22.05"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "lame -b 24 8 kHz mono (MPEG-2.5)", encoder: "lame", arguments: ["-b", "24"], channels: 1, rate: 8000, patch: nil),
        Kind(name: "lame -b 16 11.025 kHz (MPEG-2.5)", encoder: "lame", arguments: ["-b", "16"], channels: 2, rate: 11025, patch: nil),
        Kind(name: "lame --abr 96 32 kHz", encoder: "lame", arguments: ["--abr", "96"], channels: 2, rate: 32000, patch: nil),
        Kind(name: "lame -p -b 160 48 kHz (CRC)", encoder: "lame", arguments: ["-p", "-b", "160"], channels: 2, rate: 48000, patch: nil),
        Kind(name: "lame -m d -b 112 (dual channel)", encoder: "lame", arguments: ["-m", "d", "-b", "112"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "lame -t -V4 with a VBRI frame", encoder: "lame", arguments: ["-t", "-V4"], channels: 2, rate: 44100, patch: "vbri"),
        Kind(name: "ffmpeg 96k without a Xing frame", encoder: "ffmpeg", arguments: ["-b:a", "96k", "-write_xing", "0"], channels: 2, rate: 44100, patch: nil),
        Kind(name: "ffmpeg 160k 48 kHz", encoder: "ffmpeg", arguments: ["-b:a", "160k"], channels: 2, rate: 48000, patch: nil),
    ]

    /// A noisy, music-like signal: sweeps, and noise in bursts (the reservoir fills and drains).
    static func signal(channels: Int, rate: Int, seconds: Double) -> String {
        let left = "(0.3+0.2*sin(2*PI*0.5*t))*sin(2*PI*(200*t+60*t*t))+0.15*(2*random(0)-1)*gt(sin(2*PI*0.7*t),0)"
        let right = "0.3*sin(2*PI*(700*t+20*t*t))+0.1*(2*random(1)-1)*gt(sin(2*PI*1.1*t),0.3)"
        let expression = channels == 1 ? "(\(left)+\(right))/2" : "\(left)|\(right)"
        return "aevalsrc=exprs='\(expression)':c=\(channels == 1 ? "mono" : "stereo"):s=\(rate):d=\(seconds)"
    }

    /// `kind`'s file of `seconds` seconds, made in `directory`; with `keepingSource`, the WAV it
    /// was encoded from stays beside it (same name, `.wav`).
    public static func make(_ kind: Kind, seconds: Double, in directory: URL, keepingSource: Bool = false) async throws -> URL {
        let stem = kind.name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let url = directory.appendingPathComponent(String(stem) + ".mp3")
        let wav = directory.appendingPathComponent(String(stem) + ".wav")
        try await run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", signal(channels: kind.channels, rate: kind.rate, seconds: seconds),
                           "-c:a", "pcm_s16le", wav.path])
        if kind.encoder == "lame" {
            try await run("lame", ["--quiet"] + kind.arguments + [wav.path, url.path])
        } else {
            try await run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav.path, "-c:a", "libmp3lame"] + kind.arguments + [url.path])
        }
        if !keepingSource { try? FileManager.default.removeItem(at: wav) }
        if kind.patch == "vbri" { try addVBRIFrame(to: url) }
        return url
    }

    /// An M4A (FFmpeg's AAC encoder at 128 kb/s, with or without noise substitution) of the same
    /// signal, `seconds` long, in stereo at 44.1 kHz, its WAV source beside it (same name, `.wav`).
    public static func makeAAC(seconds: Double, noiseSubstitution: Bool, in directory: URL) async throws -> URL {
        let url = directory.appendingPathComponent(noiseSubstitution ? "aac-pns.m4a" : "aac-nopns.m4a")
        let wav = url.deletingPathExtension().appendingPathExtension("wav")
        try await run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", signal(channels: 2, rate: 44100, seconds: seconds),
                           "-c:a", "pcm_s16le", wav.path])
        try await run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", wav.path, "-c:a", "aac", "-b:a", "128k",
                           "-aac_pns", noiseSubstitution ? "1" : "0", url.path])
        return url
    }

    /// Puts a VBRI frame (Fraunhofer's tag: version 1, the byte and frame counts, no seek table)
    /// in front of the first frame of `url`, which must have no tag frame of its own.
    static func addVBRIFrame(to url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        var start = 0
        if bytes.count > 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {
            start = 10 + bytes[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        }
        let first = bytes[start..<(start + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var frames = 0
        var position = start
        while position + 4 <= bytes.count {
            let header = bytes[position..<(position + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard header & 0xFFE0_0000 == 0xFFE0_0000 else { break }
            position += frameSize(header)
            frames += 1
        }
        // A 160 kb/s frame without CRC or padding (522 bytes at 44.1 kHz): room for the tag.
        let header = (first & ~UInt32(0xF << 12) & ~UInt32(1 << 9) & ~UInt32(3 << 4)) | (1 << 16) | (10 << 12)
        var tag = [UInt8](repeating: 0, count: frameSize(header))
        func put(_ value: Int, _ width: Int, at offset: Int) {
            for byte in 0..<width { tag[offset + byte] = UInt8((value >> (8 * (width - 1 - byte))) & 0xFF) }
        }
        put(Int(header), 4, at: 0)
        tag.replaceSubrange(36..<40, with: Array("VBRI".utf8))
        put(1, 2, at: 40)                                   // version
        put(576 + 529, 2, at: 42)                           // delay (not read by FFmpeg)
        put(75, 2, at: 44)                                  // quality
        put(bytes.count - start + tag.count, 4, at: 46)     // bytes
        put(frames, 4, at: 50)                              // frames
        bytes.insert(contentsOf: tag, at: start)
        try Data(bytes).write(to: url)
    }

    /// Bytes of the layer III frame with `header`.
    static func frameSize(_ header: UInt32) -> Int {
        let version = (header >> 19) & 3
        let lowRate = version != 3
        let rates = [44100, 48000, 32000][Int((header >> 10) & 3)] / (version == 3 ? 1 : version == 2 ? 2 : 4)
        let mpeg1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        let mpeg2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        let bitRate = 1000 * (lowRate ? mpeg2 : mpeg1)[Int((header >> 12) & 0xF)]
        return (lowRate ? 72 : 144) * bitRate / rates + Int((header >> 9) & 1)
    }

    private static func run(_ tool: String, _ arguments: [String]) async throws {
        let result = try await ProcessRunner.run(tool, arguments)
        guard result.status == 0 else {
            throw FFmpegOracle.Failure(description: "\(tool) failed: \(result.errorText)")
        }
    }

    /// The MP3 frames of `url` after its ID3v2 tag and its Xing/Info/VBRI frame, if any: where
    /// they start and how they are split.
    public static func audioFrames(_ bytes: [UInt8]) -> (tagFrame: Range<Int>?, frames: [Range<Int>]) {
        var start = 0
        if bytes.count > 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 {
            start = 10 + bytes[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        }
        var frames: [Range<Int>] = []
        var position = start
        while position + 4 <= bytes.count {
            let header = bytes[position..<(position + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard header & 0xFFE0_0000 == 0xFFE0_0000 else { break }
            let size = frameSize(header)
            guard size > 0, position + size <= bytes.count else { break }
            frames.append(position..<(position + size))
            position += size
        }
        guard let first = frames.first else { return (nil, []) }
        let text = String(decoding: bytes[first].dropFirst(4).prefix(40), as: UTF8.self)
        if text.contains("Xing") || text.contains("Info") || text.contains("VBRI") {
            return (first, Array(frames.dropFirst()))
        }
        return (nil, frames)
    }
}
