import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// Exact seeking: a range decoded after a seek equals `ffmpeg -af atrim=start_sample=A:end_sample=B`.
@Suite(.runsProcesses) struct RangeOracleTests {
    /// Decodes frames `range` of `url` with the library.
    static func decode(_ url: URL, _ range: Range<Int64>) throws -> [Int16] {
        let source = try TestDecode.source(url).range(range, name: url.lastPathComponent)
        return try TestDecode.blocks(of: source).flatMap(\.samples)
    }

    /// `count` ranges in a file of `frames` frames: 1 frame, the very start, the very end, and random ones.
    static func ranges(frames: Int64, seed: UInt64, count: Int = 20) -> [Range<Int64>] {
        var generator = SplitMix(seed: seed)
        var result: [Range<Int64>] = [0..<1, 0..<min(frames, 3000), (frames - 1)..<frames, max(0, frames - 2500)..<frames]
        while result.count < count {
            let a = Int64(generator.next() % UInt64(frames))
            let b = min(frames, a + 1 + Int64(generator.next() % UInt64(min(frames, 20_000))))
            result.append(a..<b)
        }
        return result
    }

    /// Fixtures whose decoders converge exactly after a seek (not AAC with noise substitution).
    static var exactFixtures: [String] {
        Fixtures.decodable.filter { !$0.contains("aac") && !$0.contains("opus") && !$0.hasPrefix("edge-wrong") && !$0.hasPrefix("edge-empty") }
    }

    @Test("20 ranges per fixture are bit-exact slices of the continuous decode", arguments: exactFixtures)
    func exact(_ name: String) async throws {
        try await Self.check(Fixtures.url(name), maximumDifference: 0)
    }

    @Test("MP3 at every bit rate, VBR -q:a 9 included, and AAC without noise substitution are exact",
          arguments: [["-c:a", "libmp3lame", "-q:a", "9"], ["-c:a", "libmp3lame", "-b:a", "32k"],
                      ["-c:a", "aac", "-aac_pns", "0"]])
    func madeAtTestTime(_ codec: [String]) async throws {
        let directory = try TemporaryDirectory()
        let file = try await SignalFiles.make(codec.contains("aac") ? "x.m4a" : "x.mp3", seconds: 20, in: directory.url, codecArguments: codec)
        try await Self.check(file, maximumDifference: 0)
    }

    @Test("AAC with noise substitution: exact length and position; noise bands differ", arguments: ["m4a-aac-2ch-44100.m4a", "adts-aac-2ch-44100.aac", "m4a-aac-6ch-48000.m4a"])
    func aacWithNoise(_ name: String) async throws {
        // PNS fills bands with noise from a generator whose state only a continuous decode has.
        try await Self.check(Fixtures.url(name), maximumDifference: 1000)
    }

    @Test("Opus converges after its pre-roll, not to the bit: exact length and position, within a step",
          arguments: ["opus-2ch-48000.opus", "webm-opus-2ch-48000.webm"])
    func opus(_ name: String) async throws {
        try await Self.check(Fixtures.url(name), maximumDifference: 2)
    }

    @Test("MPEG-2 VBR (lame -V9 resamples to 22.05 kHz: one granule a frame, sizes from 26 to 522 bytes) is exact after a seek")
    func mpeg2VariableBitRate() async throws {
        // A frame's output depends on the two granules before it: in MPEG-2 two frames, whose
        // main data (a large frame's, after small ones) may begin further back than one frame's reach.
        let directory = try TemporaryDirectory()
        let file = try await MP3Classes.make(try #require(MP3Classes.main.first { $0.name == "lame -V9" }), seconds: 8, in: directory.url)
        try await Self.check(file, maximumDifference: 0, count: 120)
    }

    static func check(_ url: URL, maximumDifference: Int, count: Int = 20) async throws {
        let full = try await FFmpegOracle.samples(of: url)
        let channels = try await FFmpegOracle.probe(url).stream["channels"] as? Int ?? 1
        let frames = Int64(full.count / channels)
        try #require(frames > 0)
        for range in ranges(frames: frames, seed: UInt64(url.lastPathComponent.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }), count: count) {
            let ours = try decode(url, range)
            let expected = Array(full[(Int(range.lowerBound) * channels)..<(Int(range.upperBound) * channels)])
            #expect(ours.count == expected.count, "\(url.lastPathComponent) \(range): \(ours.count / channels) frames")
            let worst = zip(ours, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= maximumDifference, "\(url.lastPathComponent) \(range): differs by \(worst)")
        }
    }

    // A FLAC frame the decoder rejects moves every later sample earlier than its timestamp says,
    // so a seek waits for a scan of the frames before it (``FLACDamageScan``); a range decodes
    // nothing after its end, so the scan stops there (half a file for a range from the middle).
    @Test("a FLAC range is scanned only up to its end: before damage, exact and silent about what it never read; a seek past it scans the rest first")
    func flacRangeScansToItsEnd() async throws {
        let input = Fixtures.url("bad-flac-damaged-frame.flac")
        let oracle = try await LengthOracle(input)
        // The damage sits at the middle of the file's bytes (about 1 s of 2); the range ends well before.
        let range = 8_820..<26_460
        let chain = try TestDecode.chain(input, range: try TimeRange(start: .frames(Int64(range.lowerBound)),
                                                                     end: .frames(Int64(range.upperBound))))
        let part = try TestDecode.blocks(of: chain.source).flatMap(\.samples)
        let partSame = part == oracle.slice(range)
        #expect(partSame)
        #expect(chain.warnings.isEmpty, "the range was scanned past its end: \(chain.warnings)")
        #expect(chain.file.length.source == .container, "\(chain.file.length)")
        // Past where the scan stopped and past the damage: at the decode's position, not the timestamp's.
        let after = oracle.frames - 20_000
        let reached = try chain.file.seek(to: Int64(after), endingAt: nil)
        #expect(reached.reached == Int64(after))
        var tail: [Int16] = []
        while tail.count < 10_000 * oracle.channels, let chunk = try chain.file.read(maximumFrames: 4096) {
            tail += SampleBuffer(chunk, format: chain.file.format).samples
        }
        let tailSame = Array(tail.prefix(10_000 * oracle.channels)) == oracle.slice(after..<(after + 10_000))
        #expect(tailSame, "a seek to frame \(after), past where the range's scan stopped, is not the decode's frame")
        #expect(!chain.warnings.isEmpty, "the damage the rest of the scan met is not reported")
    }
}
