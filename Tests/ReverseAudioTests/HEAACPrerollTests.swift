import Foundation
import Testing
import TestSupport
@testable import ReverseAudioFFmpeg

/// HE-AAC (SBR) and HE-AAC v2 (SBR and parametric stereo) keep state from packet to packet
/// that plain AAC does not, so a decode restarted after a seek needs more packets before its
/// target (issue 28, item 11). No encoder here makes HE-AAC (FFmpeg cannot; Debian's main
/// archive has none): the fixture is an LC encode whose MP4 states HE-AAC v2 explicitly, which
/// FFmpeg decodes through the SBR QMF banks (upsampled to 44.1 kHz, made stereo) without SBR or
/// PS data. It checks how the stream is recognised, the pre-roll the trait gives and that a
/// range is the whole decode's frames; not what real SBR envelopes or PS parameters do.
@Suite(.runsProcesses) struct HEAACPrerollTests {
    static let signalled = Fixtures.url("edge-m4a-he-aac-v2-signalled.m4a")

    @Test("an MP4 stating HE-AAC v2 restarts 5 packets before a seek's target, and is not called bit-exact")
    func parametricStereoPreroll() throws {
        let traits = try AudioInput(url: Self.signalled).traits
        #expect(traits.prerollSamples == 5 * 2048, "pre-roll \(traits.prerollSamples) samples")
        #expect(traits.restartPacket(holding: 10) { _ in 400 } == 5)
        #expect(traits.seekExactness == .converges)
    }

    @Test("plain AAC keeps its measured 2 packets")
    func plainAACPreroll() throws {
        let traits = try AudioInput(url: Fixtures.url("adts-aac-2ch-44100.aac")).traits
        #expect(traits.prerollSamples == 2 * 1024)
        #expect(traits.restartPacket(holding: 10) { _ in 400 } == 8)
        #expect(traits.seekExactness == .bitExactWithoutNoiseSubstitution)
    }

    @Test("ranges of the stream stated HE-AAC v2 are the frames of its whole decode (ffmpeg's, sliced)")
    func rangesAreTheWholeDecode() async throws {
        let oracle = try await LengthOracle(Self.signalled)
        for range in [Int64(0)..<4096, 10_000..<30_000, 30_000..<Int64(oracle.frames)] {
            let source = try TestDecode.source(Self.signalled).range(range, name: "he")
            let decoded = try TestDecode.blocks(of: source).flatMap(\.samples)
            let expected = oracle.slice(Int(range.lowerBound)..<Int(range.upperBound))
            let same = decoded == expected
            #expect(same, "\(range): \(decoded.count) samples, \(expected.count) expected")
        }
    }
}
