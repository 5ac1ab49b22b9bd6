import Foundation
import Testing
import ReverseAudio
import ReverseAudioTesting
import TestSupport

/// The library as a library: a caller's `PCMSource` goes where a URL goes (convert, waveform,
/// playback), and the combinators build one, through the public API alone (no `@testable`).
@Suite struct LibrarySourceTests {
    /// A source written the way a library user writes one: a sine tone computed on demand, with
    /// the public initializers of `PCMChunk`, `PCMLength` and `SeekedTo`.
    final class Tone: PCMSource {
        let format = PCMFormat(sampleFormat: .s16, sampleRate: 8_000, channelCount: 1)
        let frames: Int64
        let statesLength: Bool
        private var position: Int64 = 0
        private var buffer = [Int16](repeating: 0, count: 500)

        init(frames: Int64, statesLength: Bool = true) {
            self.frames = frames
            self.statesLength = statesLength
        }

        static func sample(_ frame: Int64) -> Int16 { Int16(10_000 * sin(Double(frame) * 2 * .pi * 440 / 8_000)) }

        var length: PCMLength { PCMLength(frames: statesLength ? frames : nil, source: .container) }

        func read(maximumFrames: Int) throws -> PCMChunk? {
            let count = Int(min(Int64(min(maximumFrames, buffer.count)), frames - position))
            guard count > 0 else { return nil }
            for index in 0..<count { buffer[index] = Self.sample(position + Int64(index)) }
            defer { position += Int64(count) }
            return buffer.withUnsafeBytes { PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<(count * 2)]), frameCount: count,
                                                     position: position) }
        }

        func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
            position = min(max(frame, 0), frames)
            return SeekedTo(required: frame, reached: position)
        }
    }

    static func samples(of url: URL) throws -> [Int16] {
        try AudioReader(url: url, sampleFormat: .s16).remainingSamples()
    }

    @Test("a caller's source converts to a WAV, forwards and reversed, sample for sample; its length unknown too")
    func convertsASource() async throws {
        let directory = try TemporaryDirectory()
        let expected = (0..<12_345).map { Tone.sample(Int64($0)) }
        for statesLength in [true, false] {
            let forwards = directory.file("forwards-\(statesLength).wav")
            let result = try await AudioConverter.convert(Tone(frames: 12_345, statesLength: statesLength), to: forwards)
            #expect(result.input == nil)
            #expect(result.frames == 12_345)
            #expect(try Self.samples(of: forwards) == expected)
            let backwards = directory.file("backwards-\(statesLength).flac")
            _ = try await AudioConverter.convert(Tone(frames: 12_345, statesLength: statesLength), to: backwards,
                                                 options: ConversionOptions(reverse: true))
            #expect(try Self.samples(of: backwards) == expected.reversed())
        }
    }

    @Test("the options act on a source as on a file: a range, a gain, a rate")
    func optionsOnASource() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("part.wav")
        var options = ConversionOptions(reverse: true)
        options.range = try TimeRange(start: .frames(1_000), end: .frames(3_000))
        options.effects = [Gain(decibels: -6.020599913279624)]
        _ = try await AudioConverter.convert(Tone(frames: 8_000), to: output, options: options)
        let halved = (1_000..<3_000).map { Int16((Double(Tone.sample(Int64($0))) / 2).rounded()) }
        let written = try Self.samples(of: output)
        #expect(written.count == 2_000)
        #expect(zip(written, halved.reversed()).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        let resampled = directory.file("16k.wav")
        options = ConversionOptions()
        options.sampleRate = 16_000
        let result = try await AudioConverter.convert(Tone(frames: 8_000), to: resampled, options: options)
        #expect(result.format.sampleRate == 16_000)
        #expect(abs(result.frames - 16_000) <= 32)
    }

    @Test("the combinators: range, channel, followed, applying, reversed")
    func combinators() throws {
        let stereo = MemorySource.counting(frames: 1_000, channelCount: 2)
        let all = MemorySource.countingSamples(frames: 1_000, channelCount: 2)
        let right = try stereo.range(100..<300).channel(1)
        #expect(try right.remainingSamples() == (100..<300).map { all[$0 * 2 + 1] })
        let joined = try MemorySource.counting(frames: 10).followed(by: [MemorySource.counting(frames: 5)])
        #expect(try joined.remainingSamples() == Array(0..<10) + Array(0..<5))
        let louder = try MemorySource(samples: [100, -200, 300]).applying(Gain(decibels: 6.020599913279624))
        #expect(try louder.remainingSamples() == [200, -400, 600])
        let backwards = MemorySource.counting(frames: 5_000, chunkFrames: 333).reversed()
        #expect(backwards.length.frames == 5_000)
        #expect(try backwards.remainingSamples(step: 777) == MemorySource.countingSamples(frames: 5_000).reversed())
    }

    @Test("a waveform of a source is the waveform of the same frames in a file")
    func waveformOfASource() async throws {
        let directory = try TemporaryDirectory()
        let wav = directory.file("tone.wav")
        _ = try await AudioConverter.convert(Tone(frames: 8_000), to: wav)
        let fromFile = directory.file("file.svg")
        let fromSource = directory.file("source.svg")
        try await Waveform.draw(wav, to: fromFile, width: 400, height: 200)
        try await Waveform.draw(Tone(frames: 8_000, statesLength: false), named: "tone.wav", to: fromSource, width: 400, height: 200)
        #expect(try Data(contentsOf: fromSource) == Data(contentsOf: fromFile))
    }

    @Test("playback renders a source backwards exactly; a source of unknown length is refused, named")
    func playsASource() throws {
        let renderer = try PlaybackRenderer(source: MemorySource.counting(frames: 20_000), name: "counting", direction: .reverse)
        #expect(renderer.frameCount == 20_000)
        var rendered: [Int16] = []
        var buffer = [Int16](repeating: 0, count: 1_024)
        while case let frames = try buffer.withUnsafeMutableBytes({ try renderer.render(into: $0, frameCount: 1_024) }), frames > 0 {
            rendered += buffer[0..<frames]
        }
        #expect(rendered == MemorySource.countingSamples(frames: 20_000).reversed())
        #expect(throws: ReverseAudioError.input(.lengthUnknown(path: "stream", reason: "playing it backwards needs it"))) {
            try PlaybackRenderer(source: MemorySource.counting(frames: 10, stating: .unknown), name: "stream")
        }
    }
}
