import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg

/// The sample format a composition writes: the one that holds every piece exactly.
@Suite(.runsProcesses) struct CompositionFormatTests {
    @Test("the widest sample format holds every piece exactly: wider integers, float beside integer, f64 beside 32-bit integers")
    func widest() {
        #expect(Composition.widest([.s16, .s24]) == .s24)
        #expect(Composition.widest([.s24, .s16]) == .s24)
        #expect(Composition.widest([.u8, .s16]) == .s16)
        #expect(Composition.widest([.s16, .f32]) == .f32)
        #expect(Composition.widest([.f32, .s24]) == .f32)
        #expect(Composition.widest([.s32, .f32]) == .f64)
        #expect(Composition.widest([.f64, .s16]) == .f64)
        #expect(Composition.widest([.s32]) == .s32)
        #expect(Composition.widest([]) == .s16)
        // FLAC and ALAC hold integers of at most 24 bits: a lossy decode's float goes in as 24-bit,
        // a lossless float piece stays float (and the writer refuses it, naming --sample-format).
        #expect(Composition.widest(lossless: [.s16], lossy: [.f32], storedBy: .flac) == .s24)
        #expect(Composition.widest(lossless: [], lossy: [.f32], storedBy: .alac) == .s24)
        #expect(Composition.widest(lossless: [.f32], lossy: [], storedBy: .flac) == .f32)
        #expect(Composition.widest(lossless: [.s16], lossy: [.f32], storedBy: .pcm()) == .f32)
    }

    @Test("a 16-bit WAV joined to a decoded MP3 into FLAC is 24-bit; --verbose names both conversions")
    func lossyIntoFLAC() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("joined.flac")
        let wav = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let mp3 = Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3")
        let result = try Composition(pieces: [.file(wav), .file(mp3)]).write(to: output, cancellation: CancellationFlag())
        #expect(result.format.sampleFormat == .s24)
        #expect(result.paths.count == 2 && result.paths[0].contains("sample format s16 → s24 (exact)")
                    && result.paths[1].hasPrefix("decoded") && result.paths[1].contains("sample format f32 → s24"), "\(result.paths)")
        #expect(try await FFmpegOracle.probe(output).stream["bits_per_raw_sample"] as? String == "24")
    }
}
