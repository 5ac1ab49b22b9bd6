import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg

/// Lossless MP3 cuts through the library, in process: 100 random cuts of every class of MP3
/// (LAME's CLI and ffmpeg's libmp3lame at 128 kb/s, -V5, -V9 and 64 kb/s mono, and a file with
/// no tag frame), each of which must be copied (the input's frames byte for byte, but for a
/// prepended frame carrying the bit reservoir), decode with ffmpeg to exactly the slice of the
/// input's decode (as `atrim` cuts it) and with mpg123 to its slice of mpg123's decode within
/// 1 LSB. All outputs of a class are decoded by one ffmpeg process and one mpg123 process.
@Suite(.runsProcesses) struct MP3CutOracleTests {
    /// What the tool decodes from one file: ffmpeg's float samples and mpg123's 16-bit ones.
    struct Decodes {
        let ffmpeg: NativePCM
        let mpg123: [Int16]
        let channels: Int
    }

    static func decodes(_ urls: [URL]) async throws -> Decodes {
        let ffmpeg = await urls.count == 1 ? try NativePCM.decode(urls[0]) : try NativePCM.decodeConcatenated(urls)
        let result = try await ProcessRunner.run("mpg123", ["-q", "-s"] + urls.map(\.path))
        guard result.status == 0 else { throw FFmpegOracle.Failure(description: "mpg123 failed: \(result.errorText)") }
        let channels = try await FFmpegOracle.probe(urls[0]).stream["channels"] as? Int ?? 1
        return Decodes(ffmpeg: ffmpeg, mpg123: FFmpegOracle.int16Array(result.standardOutput), channels: channels)
    }

    /// `count` cuts of a file of `frames` frames: the very start and end, one frame, the whole,
    /// and random ones of up to 3 s.
    static func cuts(frames: Int, count: Int, seed: UInt64, rate: Int) -> [Range<Int>] {
        var generator = SplitMix(seed: seed)
        var result: [Range<Int>] = [0..<1, 0..<frames, (frames - 1)..<frames, 0..<min(frames, 3000), max(0, frames - 5000)..<frames,
                                    (frames / 2)..<(frames / 2 + 1)]
        while result.count < count {
            let start = Int(generator.next() % UInt64(frames))
            let length = 1 + Int(generator.next() % UInt64(3 * rate))
            result.append(start..<min(frames, start + length))
        }
        return Array(result.prefix(count))
    }

    /// True when `bytes` occur in `source` as they are.
    static func contains(_ source: [UInt8], _ bytes: ArraySlice<UInt8>) -> Bool {
        guard let head = bytes.first, bytes.count <= source.count else { return bytes.isEmpty }
        var position = 0
        while position + bytes.count <= source.count {
            guard let found = source[position...].firstIndex(of: head), found + bytes.count <= source.count else { return false }
            if source[found..<(found + bytes.count)].elementsEqual(bytes) { return true }
            position = found + 1
        }
        return false
    }

    /// Checks that `cut`'s audio frames are `source`'s, byte for byte, but for a first frame
    /// that decodes to silence (all-zero side information); returns whether it had one.
    static func expectCopied(_ cut: URL, from source: [UInt8], _ label: String) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: cut))
        let parsed = MP3Classes.audioFrames(bytes)
        #expect(parsed.tagFrame != nil, "\(label): no Xing/Info frame")
        guard let first = parsed.frames.first, let last = parsed.frames.last else {
            Issue.record("\(label): no frames")
            return false
        }
        if contains(source, bytes[first.lowerBound..<last.upperBound]) { return false }
        guard parsed.frames.count > 1, contains(source, bytes[parsed.frames[1].lowerBound..<last.upperBound]) else {
            Issue.record("\(label): the frames are not the input's")
            return false
        }
        // The prepended frame: side information all zero (after the header and any CRC).
        let header = bytes[first].prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let crc = (header >> 16) & 1 == 0 ? 2 : 0
        let lowRate = (header >> 19) & 3 != 3
        let mono = (header >> 6) & 3 == 3
        let side = lowRate ? (mono ? 9 : 17) : (mono ? 17 : 32)
        let sideInformation = bytes[(first.lowerBound + 4 + crc)..<(first.lowerBound + 4 + crc + side)]
        #expect(sideInformation.allSatisfy { $0 == 0 }, "\(label): the prepended frame's side information is not zero")
        return true
    }

    /// `count` cuts of `input` through the library, checked as the suite says.
    static func check(_ input: URL, name: String, count: Int, mpg123: Bool, expectsRepairs: Bool) async throws {
        let whole = try await decodes([input])
        let channels = whole.channels
        let frames = whole.ffmpeg.frames
        let rate = try await Int(FFmpegOracle.probe(input).stream["sample_rate"] as? String ?? "") ?? 44100
        let source = [UInt8](try Data(contentsOf: input))
        let directory = try TemporaryDirectory()
        var outputs: [URL] = []
        var expected: [UInt8] = []
        var expectedMPG: [Int16] = []
        var repaired = 0
        var labels: [Range<Int>] = []
        var reencoded = 0
        for (index, cut) in cuts(frames: frames, count: count, seed: UInt64(name.utf8.reduce(17) { $0 &* 31 &+ UInt64($1) }), rate: rate)
            .enumerated() {
            let output = directory.file("\(index).mp3")
            let label = "\(name) \(cut.lowerBound)..<\(cut.upperBound)"
            let piece = CompositionPiece.file(input, range: try TimeRange(start: .frames(Int64(cut.lowerBound)),
                                                                          end: .frames(Int64(cut.upperBound))))
            let result = try Composition(pieces: [piece]).write(to: output, cancellation: CancellationFlag())
            guard result.paths.first?.hasPrefix("copied (MP3 frames") == true, result.warnings.isEmpty else {
                // FFmpeg's decoder cannot trim a cut inside one frame at both ends: such a cut (under
                // 1152 samples) is encoded again, and says so and what it decodes to.
                let reason = result.warnings.map(\.description).joined()
                #expect(cut.count < 1152 && reason.contains("inside one MP3 frame"), "\(label): not copied: \(result.paths) \(reason)")
                await #expect(result.frames == Int64(try NativePCM.decode(output).frames), "\(label): \(result.frames) frames said")
                reencoded += 1
                continue
            }
            #expect(result.frames == Int64(cut.count), "\(label): \(result.frames) frames")
            if try expectCopied(output, from: source, label) { repaired += 1 }
            outputs.append(output)
            labels.append(cut)
            expected += whole.ffmpeg.slice(cut)
            expectedMPG += whole.mpg123[(cut.lowerBound * channels)..<(cut.upperBound * channels)]
        }
        try #require(outputs.count + reencoded == count, "\(name): \(outputs.count) of \(count) cuts copied")
        let decoded = try await decodes(outputs)
        #expect(decoded.ffmpeg.bytes.count == expected.count, "\(name): ffmpeg decodes \(decoded.ffmpeg.bytes.count) bytes, expected \(expected.count)")
        if decoded.ffmpeg.bytes != expected {
            // Which cuts: decode them one by one.
            var offset = 0
            for (index, output) in outputs.enumerated() {
                let alone = try await NativePCM.decode(output).bytes
                let wanted = expected[offset..<min(expected.count, offset + labels[index].count * whole.ffmpeg.frameBytes)]
                if !alone.elementsEqual(wanted) { Issue.record("\(name) \(labels[index]): ffmpeg's decode is not the slice") }
                offset += labels[index].count * whole.ffmpeg.frameBytes
            }
        }
        if mpg123 {
            #expect(decoded.mpg123.count == expectedMPG.count, "\(name): mpg123 decodes \(decoded.mpg123.count) samples, expected \(expectedMPG.count)")
            let largest = zip(decoded.mpg123, expectedMPG).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
            #expect(largest <= 1, "\(name): mpg123's decode differs by up to \(largest)")
        }
        // Most cuts of these files need the reservoir repaired: both ways are exercised.
        if expectsRepairs { #expect(repaired > 0 && repaired < count, "\(name): \(repaired) of \(count) cuts needed a reservoir frame") }
    }

    @Test("100 random cuts are copied byte for byte and decode exactly (ffmpeg: bit for bit; mpg123: within 1 LSB)",
          arguments: MP3Classes.main)
    func hundredCuts(_ kind: MP3Classes.Kind) async throws {
        let directory = try TemporaryDirectory()
        let input = try await MP3Classes.make(kind, seconds: 8, in: directory.url)
        try await Self.check(input, name: kind.name, count: 100, mpg123: true, expectsRepairs: true)
    }

    @Test("MPEG-2 and 2.5, CRC-protected frames, ABR, 32 and 48 kHz, dual channel, a VBRI frame: cuts are copied and exact",
          arguments: MP3Classes.more)
    func moreClasses(_ kind: MP3Classes.Kind) async throws {
        let directory = try TemporaryDirectory()
        let input = try await MP3Classes.make(kind, seconds: 5, in: directory.url)
        // mpg123 decodes a VBRI frame as a silent frame where FFmpeg skips it: only ffmpeg is the oracle there.
        try await Self.check(input, name: kind.name, count: 20, mpg123: !kind.name.contains("VBRI"), expectsRepairs: false)
    }
}
