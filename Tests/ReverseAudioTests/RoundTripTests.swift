import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// The seed app's check: reverse, reverse again, compare with the original.
@Suite(.runsProcesses) struct RoundTripTests {
    @Test("passes for every input", arguments: Fixtures.allDecodableInputs)
    func passes(_ input: URL) async throws {
        let directory = try TemporaryDirectory()
        let report = try await RoundTrip.run(input, into: directory.url)
        #expect(report.verified, "\(report.mismatch ?? "")")
        let name = input.deletingPathExtension().lastPathComponent
        #expect(directory.contents == ["\(name)-REVERSED-REVERSED.wav", "\(name)-REVERSED.wav"])
        #expect(try await FFmpegOracle.samples(of: report.reversedReversed.output) == FFmpegOracle.samples(of: input))
    }

    @Test("makes a missing folder, as the CLI's -o does; native sample formats round-trip too",
          arguments: ["wav-pcm_s24le-2ch-48000.wav", "wav-pcm_f32le-2ch-44100.wav", "wav-pcm_u8-1ch-8000.wav"])
    func missingFolderAndNativeFormats(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let nested = directory.file("made/by/run")
        let report = try await RoundTrip.run(Fixtures.url(name), into: nested, options: ConversionOptions(sampleFormat: nil))
        #expect(report.verified, "\(report.mismatch ?? "")")
        #expect(report.reversed.format.sampleFormat != .s16 && report.reversed.conversions.isEmpty)
    }

    @Test("passes with the first channel and with a mix-down", arguments: [ChannelSelection.first, .mix])
    func channelChoices(_ channels: ChannelSelection) async throws {
        let directory = try TemporaryDirectory()
        let report = try await RoundTrip.run(Fixtures.url("flac-s16-6ch-48000.flac"), into: directory.url,
                                             options: ConversionOptions(channels: channels))
        #expect(report.verified)
        #expect(report.reversed.format.channelCount == 1)
    }

    @Test("a corrupted REVERSED file fails verification", arguments: [0, 20_000, -1])
    func corrupted(_ frameToCorrupt: Int) throws {
        let input = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
        let directory = try TemporaryDirectory()
        let options = ConversionOptions(reverse: true)
        let reversed = try AudioConverter.convert(input, to: directory.file("x-REVERSED.wav"), options: options,
                                                  cancellation: CancellationFlag(), progress: nil)
        // Flip one sample in the data chunk (the last 4 * frames bytes of the file).
        var bytes = try Data(contentsOf: reversed.output)
        let dataStart = bytes.count - Int(reversed.frames) * 4
        let frame = frameToCorrupt >= 0 ? frameToCorrupt : Int(reversed.frames) - 1
        bytes[dataStart + frame * 4] ^= 0x55
        try bytes.write(to: reversed.output)
        let report = try RoundTrip.verify(original: input, reversed: reversed,
                                          reversedReversedURL: directory.file("x-REVERSED-REVERSED.wav"),
                                          options: options, cancellation: CancellationFlag(), progress: { _ in })
        #expect(!report.verified)
        let mirrored = Int(reversed.frames) - 1 - frame
        #expect(report.mismatch?.contains("frame \(mirrored)") == true, "\(report.mismatch ?? "")")
    }

    @Test("output names follow the seed")
    func names() {
        let names = RoundTrip.outputNames(for: URL(fileURLWithPath: "/music/Song.flac"))
        #expect(names.reversed == "Song-REVERSED.wav")
        #expect(names.reversedReversed == "Song-REVERSED-REVERSED.wav")
    }
}
