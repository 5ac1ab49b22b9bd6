import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback

/// The library agrees with itself and with the oracle on every fixture's length: what the file
/// source resolves before decoding, what it decodes, `AudioInfo`, a reversal and playback.
@Suite(.runsProcesses) struct LengthConsistencyTests {
    @Test("resolved, decoded, described, reversed and played lengths are the oracle's", arguments: Fixtures.decodable)
    func lengths(_ name: String) async throws {
        let input = Fixtures.url(name)
        let channels = await max(1, try FFmpegOracle.probe(input).stream["channels"] as? Int ?? 1)
        let oracle = await Int64(try FFmpegOracle.samples(of: input).count / channels)
        let source = try AudioFileSource(url: input)
        let resolved = try source.resolveLength()
        #expect(resolved.frames == oracle, "\(name): resolved \(resolved) before decoding")
        #expect(try TestDecode.frames(of: source) == oracle, "\(name): decoded")
        #expect(source.length.frames == oracle)
        #expect(try AudioInfo.read(from: input).frames == oracle, "\(name): AudioInfo")
        let reversal = TestDecode.reversal(try AudioFileSource(url: input))
        let reversed = try TestDecode.frames(of: reversal)
        #expect(reversed == oracle && reversal.placement.passes == 1, "\(name): reversed in \(reversal.placement.passes) passes")
        guard oracle > 0 else { return }
        let player = try PlaybackRenderer(url: input, direction: .reverse)
        var played: Int64 = 0
        while let chunk = try player.read(maximumFrames: 4096) { played += Int64(chunk.frameCount) }
        #expect(played == oracle && player.frameCount == oracle, "\(name): played backwards")
    }
}
