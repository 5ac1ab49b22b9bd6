import Foundation
import Testing
import TestSupport
import ReverseAudio

/// The library agrees with itself and with the oracle on every fixture's length: what the file
/// source resolves before decoding, what it decodes, `AudioInfo`, a reversal and playback.
@Suite struct LengthConsistencyTests {
    @Test("resolved, decoded, described, reversed and played lengths are the oracle's", arguments: Fixtures.decodable)
    func lengths(_ name: String) throws {
        let input = Fixtures.url(name)
        let channels = max(1, try FFmpegOracle.probe(input).stream["channels"] as? Int ?? 1)
        let oracle = Int64(try FFmpegOracle.samples(of: input).count / channels)
        let source = try AudioFileSource(url: input)
        let resolved = try source.resolveLength()
        #expect(resolved.frames == oracle, "\(name): resolved \(resolved) before decoding")
        while try source.read(maximumFrames: .max) != nil {}
        #expect(source.position == oracle, "\(name): decoded")
        #expect(source.length.frames == oracle)
        #expect(try AudioInfo.read(from: input).frames == oracle, "\(name): AudioInfo")
        let reversal = ReversedSource(try AudioFileSource(url: input))
        var reversed: Int64 = 0
        while let chunk = try reversal.read(maximumFrames: 1 << 16) { reversed += Int64(chunk.frameCount) }
        #expect(reversed == oracle && reversal.passes == 1, "\(name): reversed in \(reversal.passes) passes")
        guard oracle > 0 else { return }
        let player = try PlaybackRenderer(url: input, direction: .reverse)
        var played: Int64 = 0
        while let chunk = try player.read(maximumFrames: 4096) { played += Int64(chunk.frameCount) }
        #expect(played == oracle && player.frameCount == oracle, "\(name): played backwards")
    }
}
