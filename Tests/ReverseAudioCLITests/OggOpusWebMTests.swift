import Foundation
import Testing
import TestSupport

/// Ogg Vorbis, Opus and WebM outputs, each added as one format file. What went into the
/// encoder is proven by encoding the oracle's own PCM with the ffmpeg CLI: libvorbis and
/// libopus are deterministic, so the same samples at the same settings decode to the same
/// samples. Opus is resampled to 48 kHz exactly as the CLI resamples for it.
@Suite(.runsProcesses) struct OggOpusWebMTests {
    /// An input with tags, the oracle's PCM of it (`filters` applied, as WAV), and the ffmpeg
    /// CLI's encode of that PCM into `ext`.
    static func oracleEncode(_ input: URL, _ ext: String, filters: [String], in directory: TemporaryDirectory) async throws -> URL {
        let pcm = directory.file("oracle-\(ext).wav")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", input.path] + filters
                                         + ["-c:a", "pcm_s16le", pcm.path])
        try #require(made.status == 0, "\(made.errorText)")
        let encoded = directory.file("oracle.\(ext)")
        let codec = ext == "ogg" ? "libvorbis" : "libopus"
        let encode = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", pcm.path, "-c:a", codec, encoded.path])
        try #require(encode.status == 0, "\(encode.errorText)")
        return encoded
    }

    /// `input` with a title and an artist, as WAV.
    static func tagged(_ name: String, in directory: TemporaryDirectory) async throws -> URL {
        let url = directory.file("tagged-\(name)")
        let made = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", Fixtures.url(name).path,
                                                    "-metadata", "title=Über Take", "-metadata", "artist=Tester", "-c", "copy", url.path])
        try #require(made.status == 0, "\(made.errorText)")
        return url
    }

    /// Frames SoX (libvorbisfile for Ogg Vorbis) reads from `file`.
    static func soxFrames(_ file: URL, channels: Int) async throws -> Int {
        let result = try await ProcessRunner.run("sox", [file.path, "-n", "stat"])
        let line = result.errorText.split(separator: "\n").first { $0.hasPrefix("Samples read:") } ?? ""
        return (Int(line.split(separator: " ").last ?? "") ?? -1) / channels
    }

    @Test("forwards and reversed into .ogg, .opus and .webm: the encoder got the oracle's samples; lengths exact; tags kept",
          arguments: ["wav-pcm_s16le-2ch-44100.wav", "wav-pcm_s16le-1ch-8000.wav", "flac-s16-6ch-48000.flac"],
          ["ogg", "opus", "webm"])
    func encodes(_ name: String, _ ext: String) async throws {
        let directory = try TemporaryDirectory()
        let input = try await Self.tagged(name, in: directory)
        let probe = try await FFmpegOracle.probe(input).stream
        let channels = probe["channels"] as? Int ?? 0
        let rate = Int(probe["sample_rate"] as? String ?? "") ?? 0
        // Opus takes 48 kHz (or 24, 16, 12, 8): the nearest, as the CLI resamples.
        let outRate = ext == "ogg" ? rate : [48_000, 24_000, 16_000, 12_000, 8_000].min { abs($0 - rate) < abs($1 - rate) }!
        let resample = outRate == rate ? [] : ["aresample=\(outRate)"]
        for reverse in [false, true] {
            let output = directory.file("out-\(reverse).\(ext)")
            let result = try await CLI.convert(input, output, reverse: reverse, ["--verbose"])
            #expect(result.status == 0, "\(name) → .\(ext): \(result.errorText)")
            let filters = resample + (reverse ? ["areverse"] : [])
            let oracle = try await Self.oracleEncode(input, ext == "webm" ? "webm" : ext, filters: filters.isEmpty ? [] : ["-af", filters.joined(separator: ",")],
                                               in: directory)
            let ours = try await FFmpegOracle.samples(of: output)
            await #expect(ours == (try FFmpegOracle.samples(of: oracle)), "\(name) → .\(ext) reverse=\(reverse): other samples than the CLI's encode")
            let written = try await FFmpegOracle.probe(output)
            // Opus decodes at 48 kHz whatever rate it was encoded at.
            let decodedRate = ext == "ogg" ? rate : 48_000
            #expect(Int(written.stream["sample_rate"] as? String ?? "") == decodedRate)
            // The length the encoder was given, exactly: Opus's pre-skip and end trimming as ffmpeg
            // decodes them; Ogg Vorbis's last granule position as libvorbisfile reads it (FFmpeg
            // 5.1 may decode up to a block more, of its own encodes too).
            let given = try await FFmpegOracle.samples(of: input, resample.isEmpty ? [] : ["-af", resample[0]]).count / channels
            let expected = given * decodedRate / outRate
            if ext == "ogg" {
                #expect(try await Self.soxFrames(output, channels: channels) == expected, "\(name) → .ogg")
            } else {
                #expect(ours.count / channels == expected, "\(name) → .\(ext): \(ours.count / channels) frames for \(expected)")
            }
            let tags = (written.format["tags"] as? [String: Any] ?? [:]).merging(written.stream["tags"] as? [String: Any] ?? [:]) { a, _ in a }
            let lowered = Dictionary(tags.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            #expect(lowered["title"] as? String == "Über Take" && lowered["artist"] as? String == "Tester", "\(name) → .\(ext): \(tags)")
        }
    }

    @Test("a bit rate Vorbis or Opus does not take is a usage error naming the range", arguments: ["ogg", "opus", "webm"])
    func bitRateLimits(_ ext: String) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(Fixtures.url("wav-pcm_s16le-2ch-44100.wav"), directory.file("o.\(ext)"), reverse: false,
                                     ["--bitrate", "4k"])
        #expect(result.status == 64, "\(result.errorText)")
        #expect(result.errorText.contains("kb/s") && directory.contents.isEmpty, "\(result.errorText)")
    }

    @Test("WebM holds Vorbis too, on request; Ogg holds no Opus (that is .opus)")
    func codecs() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")
        let vorbis = try await CLI.convert(input, directory.file("v.webm"), reverse: false, ["--codec", "vorbis"])
        #expect(vorbis.status == 0, "\(vorbis.errorText)")
        #expect(try await FFmpegOracle.probe(directory.file("v.webm")).stream["codec_name"] as? String == "vorbis")
        let refused = try await CLI.convert(input, directory.file("o.ogg"), reverse: false, ["--codec", "opus"])
        #expect(refused.status == 64 && refused.errorText.contains("vorbis"), "\(refused.errorText)")
    }
}
