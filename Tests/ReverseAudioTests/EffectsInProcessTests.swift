import Foundation
import Testing
@testable import ReverseAudioCore
import ReverseAudioTesting

/// The effects and the decorators that change samples (gain, fade, the scaling under both, one
/// channel taken out), on frames in memory: exact values in every sample format, clipping at the
/// formats' limits, a fade's ramp at both ends and mirrored for a chain that reverses after it.
/// The numbers are worked by hand from SoX's definitions, not from the code's arithmetic.
@Suite struct EffectsInProcessTests {
    // MARK: Helpers

    /// A source of `values`, interleaved over `channels`, in `sampleFormat` (whose sample type `T` is).
    static func source<T>(_ values: [T], _ sampleFormat: SampleFormat, channels: Int = 1, rate: Int = 44_100,
                          stating: MemorySource.StatedLength = .exact, chunkFrames: Int = 1152) -> MemorySource {
        let bytes = values.withUnsafeBytes { [UInt8]($0) }
        return MemorySource(bytes: bytes, format: PCMFormat(sampleFormat: sampleFormat, sampleRate: rate, channelCount: channels),
                            stating: stating, chunkFrames: chunkFrames)
    }


    /// The frames of interleaved `samples` (of `channels` channels) in reverse order, channels kept.
    static func reversedFrames<T>(_ samples: [T], channels: Int) -> [T] {
        stride(from: samples.count / channels - 1, through: 0, by: -1).flatMap { samples[($0 * channels)..<(($0 + 1) * channels)] }
    }

    /// ×10 exactly: 10^(20/20) is a whole power of ten.
    static let tenfold = 20.0

    // MARK: Gain

    @Test("0 dB gives every sample back unchanged, over the whole 16-bit range and any chunking", arguments: [1, 7, 1000, 50_000])
    func unityGain(step: Int) throws {
        // 40 000 stereo frames count through 80 000 samples: every 16-bit value, negative ones included.
        let gained = MemorySource.counting(frames: 40_000, channelCount: 2, chunkFrames: 4096).gain(decibels: 0)
        #expect(try gained.remainingSamples(as: Int16.self, step: step) == MemorySource.countingSamples(frames: 40_000, channelCount: 2))
    }

    @Test("+20 dB on s16: each sample ×10 exactly, clipped to 32767 and −32768 just past the limits")
    func gainS16() throws {
        let input: [Int16] = [0, 1, -1, 3000, -3000, 3276, 3277, -3276, -3277, 32767, -32768]
        let output = try Self.source(input, .s16).gain(decibels: Self.tenfold).remainingSamples(as: Int16.self)
        #expect(output == [0, 10, -10, 30000, -30000, 32760, 32767, -32760, -32768, 32767, -32768])
    }

    @Test("+20 dB on s32: each sample ×10 exactly, clipped to Int32's limits one step past them")
    func gainS32() throws {
        let input: [Int32] = [0, 7, -7, 214_748_364, 214_748_365, -214_748_364, -214_748_365, .max, .min]
        let output = try Self.source(input, .s32).gain(decibels: Self.tenfold).remainingSamples(as: Int32.self)
        #expect(output == [0, 70, -70, 2_147_483_640, .max, -2_147_483_640, .min, .max, .min])
    }

    @Test("s24 in 32-bit words: scaled as 24-bit values, clipped at ±2^23, the low byte always zero")
    func gainS24() throws {
        // The low byte of the first sample is noise below 24 bits: it does not count, and comes back zero.
        let input: [Int32] = [(1000 << 8) | 0x7F, -1000 << 8, 838_860 << 8, 838_861 << 8, -838_861 << 8]
        let output = try Self.source(input, .s24).gain(decibels: Self.tenfold).remainingSamples(as: Int32.self)
        #expect(output == [10_000 << 8, -10_000 << 8, 8_388_600 << 8, 8_388_607 << 8, Int32.min])
        #expect(output.allSatisfy { $0 & 0xFF == 0 })
    }

    @Test("u8 around its silence at 128: +20 dB moves each sample ×10 from 128, clipped to 0 and 255")
    func gainU8() throws {
        let input: [UInt8] = [128, 138, 140, 141, 118, 116, 115, 0, 255]
        let output = try Self.source(input, .u8).gain(decibels: Self.tenfold).remainingSamples(as: UInt8.self)
        #expect(output == [128, 228, 248, 255, 28, 8, 0, 0, 255])
    }

    @Test("floating-point samples are scaled but never clipped: ±1.0 full scale goes past itself")
    func gainFloat() throws {
        let louder = try Self.source([Float(0.5), -0.25, 1.0, -1.0], .f32).gain(decibels: Self.tenfold).remainingSamples(as: Float.self)
        #expect(louder == [5, -2.5, 10, -10])
        let quieter = try Self.source([Float(0.5), -0.25], .f32).gain(decibels: -Self.tenfold).remainingSamples(as: Float.self)
        #expect(abs(quieter[0] - 0.05) < 1e-7 && abs(quieter[1] + 0.025) < 1e-7)
        let wide = try Self.source([1e300, -2.0], .f64).gain(decibels: Self.tenfold).remainingSamples(as: Double.self)
        #expect(abs(wide[0] / 1e301 - 1) < 1e-15 && wide[1] == -20, "no clipping at any level")
    }

    @Test("−6.02 dB halves, and a half rounds away from zero: 3 → 2, −3 → −2, 1 → 1, −1 → −1")
    func halvesRoundAwayFromZero() throws {
        var samples: [Int16] = [1, -1, 3, -3, 5, -5, 2, -2]
        // In place (source and destination the same memory), as the scaling allows.
        samples.withUnsafeMutableBytes { bytes in
            SampleScaling.scale(bytes.baseAddress!, to: bytes.baseAddress!, frames: 8,
                                format: PCMFormat(sampleRate: 8_000, channelCount: 1)) { _ in 0.5 }
        }
        #expect(samples == [1, -1, 2, -2, 3, -3, 1, -1])
    }

    @Test("a factor is per frame: both channels of frame i get factor(i), whatever the channel count")
    func factorPerFrame() throws {
        let input: [Int16] = [10, 20, 30, 10, 20, 30, 10, 20, 30]
        var output = [Int16](repeating: 0, count: input.count)
        input.withUnsafeBytes { from in
            output.withUnsafeMutableBytes { to in
                SampleScaling.scale(from.baseAddress!, to: to.baseAddress!, frames: 3,
                                    format: PCMFormat(sampleRate: 8_000, channelCount: 3)) { Double($0) }
            }
        }
        #expect(output == [0, 0, 0, 10, 20, 30, 20, 40, 60])
    }

    @Test("a gain is the same whether the chain reverses after it or not, and says itself in dB")
    func gainEffect() throws {
        let effect = Gain(decibels: -3)
        let plain = try effect.applied(to: MemorySource.counting(frames: 3_000), mirrored: false).remainingSamples(as: Int16.self)
        let mirrored = try effect.applied(to: MemorySource.counting(frames: 3_000), mirrored: true).remainingSamples(as: Int16.self)
        #expect(plain == mirrored)
        // −3 dB is ×0.7079…: sample 1000 becomes 708, and a scaled source keeps the length.
        #expect(plain[1000] == 708)
        #expect(effect.description == "gain -3 dB")
        #expect(Gain(decibels: 1.5).description == "gain 1.5 dB")
    }

    // MARK: Fade

    @Test("a linear fade of 4 frames over 10: in gives 0, ¼, ½, ¾ then full; out gives full, ¾, ½, ¼ at the end")
    func fadeEnds() throws {
        let level = [Int16](repeating: 1000, count: 10)
        let fadeIn = try Self.source(level, .s16).fade(.in, frames: 4, shape: .triangle, mirrored: false).remainingSamples(as: Int16.self)
        #expect(fadeIn == [0, 250, 500, 750, 1000, 1000, 1000, 1000, 1000, 1000])
        let fadeOut = try Self.source(level, .s16).fade(.out, frames: 4, shape: .triangle, mirrored: false).remainingSamples(as: Int16.self)
        #expect(fadeOut == [1000, 1000, 1000, 1000, 1000, 1000, 1000, 750, 500, 250])
    }

    @Test("each shape starts its fade-in at its floor (−100 dB for the logarithmic one, else silence), rises, reaches full level",
          arguments: Fade.Shape.allCases)
    func fadeShapes(_ shape: Fade.Shape) throws {
        let frames = 64
        let faded = try Self.source([Double](repeating: 1, count: 100), .f64)
            .fade(.in, frames: Int64(frames), shape: shape, mirrored: false).remainingSamples(as: Double.self)
        #expect(abs(faded[0] - (shape == .logarithmic ? 1e-5 : 0)) < 1e-15)
        #expect(zip(faded.prefix(frames), faded.dropFirst().prefix(frames)).allSatisfy { $0 < $1 }, "rises over the ramp")
        #expect(faded[frames...].allSatisfy { $0 == 1 })
        // Halfway up, SoX's curves: linear ½, quarter sine √½, half sine ½, parabola ¾, logarithmic −50 dB.
        let half: [Fade.Shape: Double] = [.triangle: 0.5, .quarterSine: 0.5.squareRoot(), .halfSine: 0.5, .parabola: 0.75,
                                          .logarithmic: pow(10, -2.5)]
        #expect(abs(faded[frames / 2] - half[shape]!) < 1e-12)
    }

    @Test("a fade mirrored, reversed afterwards, is the same fade on the reversed source: it is where it is heard",
          arguments: [Fade.End.in, .out])
    func fadeMirroredIsHeardWhereAsked(_ end: Fade.End) throws {
        let samples = MemorySource.countingSamples(frames: 1_000, channelCount: 2)
        let mirrored = try MemorySource(samples: samples, channelCount: 2, chunkFrames: 97)
            .fade(end, frames: 300, shape: .halfSine, mirrored: true).remainingSamples(as: Int16.self)
        let backwards = Self.reversedFrames(samples, channels: 2)
        let heard = try MemorySource(samples: backwards, channelCount: 2, chunkFrames: 97)
            .fade(end, frames: 300, shape: .halfSine, mirrored: false).remainingSamples(as: Int16.self)
        #expect(Self.reversedFrames(mirrored, channels: 2) == heard)
        // And the fade is not a no-op: the faded end differs from the source.
        #expect(heard != backwards)
    }

    @Test("a fade read after a seek gives the frames it gives read from the start: the ramp follows the timeline")
    func fadeAfterSeek() throws {
        let straight = try MemorySource.counting(frames: 2_000).fade(.in, frames: 1_000, shape: .quarterSine, mirrored: false).remainingSamples(as: Int16.self)
        let faded = MemorySource.counting(frames: 2_000).fade(.in, frames: 1_000, shape: .quarterSine, mirrored: false)
        #expect(try faded.seek(to: 500, endingAt: nil).reached == 500)
        #expect(try faded.remainingSamples(as: Int16.self, step: 333) == Array(straight[500...]))
    }

    @Test("a fade's length in seconds is counted at the source's rate: 10 ms at 8 kHz is the same 80-frame ramp as 80 frames")
    func fadeLengthInSeconds() throws {
        let level = [Int16](repeating: 8_000, count: 200)
        let bySeconds = try Fade(.in, length: .seconds(0.01), shape: .triangle)
            .applied(to: Self.source(level, .s16, rate: 8_000), mirrored: false).remainingSamples(as: Int16.self)
        let byFrames = try Fade(.in, length: .frames(80), shape: .triangle)
            .applied(to: Self.source(level, .s16, rate: 8_000), mirrored: false).remainingSamples(as: Int16.self)
        #expect(bySeconds == byFrames)
        #expect(bySeconds[0] == 0 && bySeconds[79] == 7_900 && bySeconds[80] == 8_000)
    }

    @Test("a fade at the end of what is heard needs the length: refused for a source of unknown length, typed")
    func fadeNeedsLength() throws {
        let unknown = { MemorySource.counting(frames: 100, stating: .unknown) }
        for (end, mirrored) in [(Fade.End.out, false), (.out, true), (.in, true)] {
            #expect {
                _ = try Fade(end, length: .frames(10)).applied(to: unknown(), mirrored: mirrored)
            } throws: { error in
                guard case ReverseAudioError.input(.lengthUnknown(_, let reason)) = error else { return false }
                return reason == "a fade at the end needs to know where the end is"
            }
        }
        // A fade-in heard at the source's start needs no length.
        let faded = try Fade(.in, length: .frames(10), shape: .triangle).applied(to: unknown(), mirrored: false).remainingSamples(as: Int16.self)
        #expect(faded.count == 100 && faded[0] == 0 && faded[99] == 99)
    }

    @Test("a fade of no frames changes nothing; a fade-in longer than the source never reaches full level")
    func fadeLengthEdges() throws {
        let samples = MemorySource.countingSamples(frames: 500)
        for end in [Fade.End.in, .out] {
            let none = try MemorySource.counting(frames: 500).fade(end, frames: 0, shape: .triangle, mirrored: false).remainingSamples(as: Int16.self)
            #expect(none == samples)
        }
        let level = [Int16](repeating: 2_000, count: 1_000)
        let long = try Self.source(level, .s16).fade(.in, frames: 2_000, shape: .triangle, mirrored: false).remainingSamples(as: Int16.self)
        #expect(long.last == 999)  // 2000 × 999/2000
    }

    @Test("fades that together outlast what is heard are refused with both lengths; fades that just meet are fine")
    func fadesFit() throws {
        let effects: [any AudioEffect] = [Fade(.in, length: .seconds(0.5)), Fade(.in, length: .seconds(1)), Gain(decibels: 6),
                                          Fade(.out, length: .seconds(1))]
        // The longer fade-in counts (1 s): 1 s + 1 s fits 2 s exactly.
        try Fade.checkFit(of: effects, within: 16_000, sampleRate: 8_000, name: "x.wav")
        #expect {
            try Fade.checkFit(of: effects, within: 12_000, sampleRate: 8_000, name: "x.wav")
        } throws: { error in
            guard let error = error as? ReverseAudioError,
                  case .range(.fadesLongerThanHeard("x.wav", 8_000, 8_000, 12_000, 8_000)) = error else { return false }
            return error.description == "x.wav: a 1.000 s fade-in and a 1.000 s fade-out last longer than the 1.500 s (12000 frames) heard; "
                + "shorten them so that together they fit"
        }
        #expect {
            try Fade.checkFit(of: [Fade(.out, length: .frames(101))], within: 100, sampleRate: 100, name: "y.flac")
        } throws: { error in
            (error as? ReverseAudioError)?.description
                == "y.flac: a 1.010 s fade-out lasts longer than the 1.000 s (100 frames) heard; shorten it to fit"
        }
    }

    // MARK: Channels

    @Test("one channel taken out, in every sample format and channel count: that channel's bytes of each frame, in order",
          arguments: SampleFormat.allCases, [1, 2, 6])
    func channelBytes(_ sampleFormat: SampleFormat, channels: Int) throws {
        let format = PCMFormat(sampleFormat: sampleFormat, sampleRate: 48_000, channelCount: channels)
        let frames = 777
        let bytes = (0..<(frames * format.bytesPerFrame)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let size = sampleFormat.bytesPerSample
        for channel in 0..<channels {
            let mono = try MemorySource(bytes: bytes, format: format, chunkFrames: 100).channel(channel, name: "memory")
            #expect(mono.format == format.mono)
            var expected: [UInt8] = []
            for frame in 0..<frames {
                let start: Int = frame * format.bytesPerFrame + channel * size
                expected += bytes[start..<(start + size)]
            }
            #expect(try mono.remainingSamples(as: UInt8.self) == expected, "channel \(channel)")
        }
    }

    @Test("a channel keeps the source's timeline: its length, its chunks' positions, its seeks; its buffer grows as reads do")
    func channelTimeline() throws {
        let mono = try MemorySource.counting(frames: 10_000, channelCount: 2, stating: .frames(12_000), chunkFrames: 5_000)
            .channel(1, name: "memory")
        #expect(mono.length == PCMLength(frames: 12_000, source: .container))
        let small = try #require(try mono.read(maximumFrames: 1))
        #expect(small.position == 0 && small.samples(as: Int16.self).first == 1)
        let large = try #require(try mono.read(maximumFrames: 5_000))
        #expect(large.position == 1 && large.frameCount == 5_000)
        #expect(Array(large.samples(as: Int16.self)) == stride(from: 3, to: 10_003, by: 2).map { Int16($0) })
        #expect(try mono.seek(to: 9_999, endingAt: nil) == SeekedTo(required: 9_999, reached: 9_999))
        #expect(try mono.remainingSamples(as: Int16.self) == [19_999])
    }

    @Test("a negative channel is refused like one past the last, naming the file")
    func negativeChannel() throws {
        #expect {
            _ = try MemorySource.counting(frames: 10).channel(-1, name: "in.wav")
        } throws: { error in
            (error as? ReverseAudioError)?.description == "in.wav: channel -1 does not exist (the file has 1 channel, numbered from 0)"
        }
    }

    @Test("a selection of all keeps every channel, the others give one; first is channel 0, mix none",
          arguments: 1...8)
    func channelSelection(sourceChannels: Int) {
        #expect(ChannelSelection.all.outputChannelCount(sourceChannels: sourceChannels) == sourceChannels)
        for selection in [ChannelSelection.first, .mix, .channel(sourceChannels - 1)] {
            #expect(selection.outputChannelCount(sourceChannels: sourceChannels) == 1)
        }
        #expect(ChannelSelection.first.extractedChannel == 0)
        #expect(ChannelSelection.channel(sourceChannels).extractedChannel == sourceChannels)
        #expect(ChannelSelection.mix.extractedChannel == nil && ChannelSelection.all.extractedChannel == nil)
    }

    @Test("a selection reads back from its own words, takes 'mono' for mix, refuses negative and unknown words")
    func channelSelectionWords() {
        for selection in [ChannelSelection.all, .first, .mix, .channel(0), .channel(5)] {
            #expect(ChannelSelection(argument: selection.description) == selection)
        }
        #expect(ChannelSelection(argument: "MONO") == .mix)
        #expect(ChannelSelection(argument: "First") == .first)
        #expect(ChannelSelection(argument: "-1") == nil)
        #expect(ChannelSelection(argument: "left") == nil)
        #expect(ChannelSelection(argument: "") == nil)
    }
}
