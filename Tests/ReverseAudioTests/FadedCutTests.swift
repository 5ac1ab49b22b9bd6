import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg

/// Smart fades: 100 random cuts with random fades (in, out or both, every SoX shape) of each
/// lossy row (MP3 from LAME and from ffmpeg, CBR and VBR, MPEG-1 and 2, stereo and mono; AAC in
/// M4A with and without noise substitution), each copied with only the frames under its fades
/// encoded again. ffmpeg is the oracle:
/// - outside the fades, widened to the codec's frames (and, after a fade-in, the frame whose
///   overlap reaches into the frames encoded again), the cut decodes to the input's own
///   continuous decode exactly (AAC with noise substitution: by length and position, block by
///   block, for its noise comes from a generator only a continuous decode has);
/// - under the fades, the error against the continuous decode faded the same way is within the
///   codec's own noise: less, in energy, than the input's own coding error there (the input's
///   decode against the WAV it was encoded from, faded alike);
/// - at most the fade's frames and 2 per boundary are encoded again (3 before a fade-in's
///   boundary in MPEG-2, whose frames are half as long as the encoder's 1105-sample delay);
/// - most of the file's bytes are copied ones.
@Suite(.runsProcesses) struct FadedCutTests {
    /// One lossy row.
    struct Row: Sendable, CustomStringConvertible {
        let description: String
        let mp3: MP3Classes.Kind?
        let noiseSubstitution: Bool

        static func mp3(_ name: String) -> Row {
            Row(description: name, mp3: MP3Classes.main.first { $0.name == name }, noiseSubstitution: false)
        }
    }

    static let rows: [Row] = [
        .mp3("lame -b 128"), .mp3("lame -V5"), .mp3("lame -V9"), .mp3("lame -b 64 mono"), .mp3("ffmpeg 128k"), .mp3("ffmpeg -q:a 5"),
        Row(description: "aac (no PNS)", mp3: nil, noiseSubstitution: false),
        Row(description: "aac (PNS)", mp3: nil, noiseSubstitution: true),
    ]

    /// `url` decoded by ffmpeg to interleaved 32-bit float.
    static func floats(_ url: URL) async throws -> [Float] {
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "f32le", "-"])
        guard result.status == 0 else { throw FFmpegOracle.Failure(description: "ffmpeg failed on \(url.lastPathComponent): \(result.errorText)") }
        return result.standardOutput.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The gain of frame `frame` of a cut of `length` frames with `fadeIn` and `fadeOut` frames
    /// of `shape`: the library's Fade, which FadeTests hold to SoX's.
    static func gain(_ frame: Int, length: Int, fadeIn: Int, fadeOut: Int, shape: Fade.Shape) -> Float {
        var gain = 1.0
        if frame < fadeIn { gain *= shape.gain(Double(frame) / Double(fadeIn)) }
        let fromEnd = length - frame
        if fadeOut > 0 && fromEnd <= fadeOut { gain *= shape.gain(Double(fromEnd) / Double(fadeOut)) }
        return Float(gain)
    }

    /// The energies of `mine − theirs` and of `theirs` (interleaved, `channels`) below 2 kHz: a
    /// 127-tap windowed-sinc low-pass (Blackman: 74 dB down from 2.6 kHz at 44.1 kHz), taken
    /// every 16th frame.
    static func lowBandEnergies(_ mine: ArraySlice<Float>, _ theirs: ArraySlice<Float>, channels: Int, rate: Int) -> (Double, Double) {
        let taps = 127
        let cutoff = 2000.0 / Double(rate)
        let kernel = (0..<taps).map { index -> Double in
            let n = Double(index - taps / 2)
            let sinc = n == 0 ? 2 * cutoff : sin(2 * .pi * cutoff * n) / (.pi * n)
            let window = 0.42 - 0.5 * cos(2 * .pi * Double(index) / Double(taps - 1)) + 0.08 * cos(4 * .pi * Double(index) / Double(taps - 1))
            return sinc * window
        }
        let frames = mine.count / channels
        var difference = 0.0
        var signal = 0.0
        for frame in stride(from: 0, to: frames - taps, by: 16) {
            for channel in 0..<channels {
                var a = 0.0
                var b = 0.0
                for (tap, weight) in kernel.enumerated() {
                    let index = (frame + tap) * channels + channel
                    a += weight * Double(mine[mine.startIndex + index])
                    b += weight * Double(theirs[theirs.startIndex + index])
                }
                difference += (a - b) * (a - b)
                signal += b * b
            }
        }
        return (difference, signal)
    }

    /// The number in the path's text last before `marker` ("3 frames re-encoded under the fade-in").
    static func number(in text: String, before marker: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        let digits = text[..<range.lowerBound].reversed().drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int(String(digits.reversed()))
    }

    @Test("100 random faded cuts of each lossy row: copied but for the frames under the fades, exact outside them, within the codec's noise inside",
          arguments: rows)
    func hundredFadedCuts(_ row: Row) async throws {
        let directory = try TemporaryDirectory()
        let input = if let mp3 = row.mp3 {
            try await MP3Classes.make(mp3, seconds: 6, in: directory.url, keepingSource: true)
        } else {
            try await MP3Classes.makeAAC(seconds: 6, noiseSubstitution: row.noiseSubstitution, in: directory.url)
        }
        let source = try await Self.floats(input.deletingPathExtension().appendingPathExtension("wav"))
        let whole = try await Self.floats(input)
        let probe = try await FFmpegOracle.probe(input).stream
        let channels = probe["channels"] as? Int ?? 2
        let rate = Int(probe["sample_rate"] as? String ?? "") ?? 44100
        let isAAC = row.mp3 == nil
        // Samples per frame: AAC's 1024; MP3's 1152, 576 in MPEG-2 (lame -V9 resamples to 22.05 kHz).
        let frameSamples = isAAC ? 1024 : rate < 32000 ? 576 : 1152
        let frames = whole.count / channels
        // The source as the decoder's timeline: an MP3 at another rate than its WAV (-V9) has no sample-aligned source.
        let sourceAligned = rate == 44100
        var generator = SplitMix(seed: UInt64(row.description.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) }))
        var copied = 0
        var oursError = 0.0
        var codecError = 0.0
        var shares: [Int] = []
        var inexactCuts: [String] = []
        for index in 0..<100 {
            let length = rate + Int(generator.next() % UInt64(3 * rate))
            let start = Int(generator.next() % UInt64(frames - length))
            let which = generator.next() % 3
            let fadeIn = which == 1 ? 0 : 1 + Int(generator.next() % UInt64(length / 3))
            let fadeOut = which == 2 ? 0 : 1 + Int(generator.next() % UInt64(length / 3))
            let shape = Fade.Shape.allCases[Int(generator.next() % 5)]
            let label = "\(row) #\(index) \(start)..<\(start + length) in \(fadeIn) out \(fadeOut) \(shape.rawValue)"
            var composition = Composition(pieces: [.file(input, range: try TimeRange(start: .frames(Int64(start)),
                                                                                      end: .frames(Int64(start + length))))])
            composition.effects = (fadeIn > 0 ? [Fade(.in, length: .frames(Int64(fadeIn)), shape: shape)] : [])
                + (fadeOut > 0 ? [Fade(.out, length: .frames(Int64(fadeOut)), shape: shape)] : [])
            let output = directory.file("\(index).\(input.pathExtension)")
            let result = try composition.write(to: output, cancellation: CancellationFlag())
            let path = result.paths.first ?? ""
            let reasons = result.warnings.map(\.description).joined()
            guard path.hasPrefix("copied") else {
                Issue.record("\(label): not copied: \(path) \(reasons)")
                continue
            }
            copied += 1
            #expect(result.frames == Int64(length), "\(label): \(result.frames) frames")
            // Frames encoded again: the fade's and at most 2 per boundary (3 before an MPEG-2 fade-in's).
            let head = Self.number(in: path, before: "re-encoded under the fade-in") ?? 0
            let tail = Self.number(in: path, before: "under the fade-out") ?? 0
            let headAllowance = frameSamples == 576 ? 3 : 2
            #expect((fadeIn > 0) == (head > 0) && head <= (fadeIn + frameSamples - 1) / frameSamples + headAllowance, "\(label): \(head) re-encoded under the fade-in: \(path)")
            #expect((fadeOut > 0) == (tail > 0) && tail <= (fadeOut + frameSamples - 1) / frameSamples + 2, "\(label): \(tail) re-encoded under the fade-out: \(path)")
            if let share = Self.number(in: path, before: "% of the bytes copied") { shares.append(share) }
            let decoded = try await Self.floats(output)
            // FFmpeg decodes an MP4's last packet whole (a player honouring the edit stops at the cut).
            #expect(decoded.count / channels == length || (isAAC && (length..<(length + 1024)).contains(decoded.count / channels)),
                    "\(label): decodes to \(decoded.count / channels) frames")
            guard decoded.count >= length * channels else { continue }
            // Outside the fades (widened to whole frames, and the frame overlapping the ones encoded
            // again after a fade-in): the input's continuous decode, sample for sample.
            let exactStart = fadeIn > 0 ? fadeIn + frameSamples + (isAAC ? 1024 : 1152) : 0
            let exactEnd = fadeOut > 0 ? length - fadeOut - frameSamples : length
            if exactStart < exactEnd {
                let mine = decoded[(exactStart * channels)..<(exactEnd * channels)]
                let theirs = whole[((start + exactStart) * channels)..<((start + exactEnd) * channels)]
                if row.noiseSubstitution {
                    // Noise-substituted bands differ (their generator's state is a continuous
                    // decode's; FFmpeg's encoder substitutes only above 4 kHz): judged by length and
                    // position below 2 kHz, where the two must agree to 40 dB (one sample out of
                    // place is off by 10 to 30 dB on this signal).
                    let (difference, signal) = Self.lowBandEnergies(mine, theirs, channels: channels, rate: rate)
                    if difference > signal * 1e-4 { inexactCuts.append(label + " (low band off by \(10 * log10(difference / signal)) dB)") }
                } else if !mine.elementsEqual(theirs) {
                    inexactCuts.append(label)
                }
            }
            // Under the fades: the error against the faded continuous decode, beside the input's own
            // coding error against its source, faded alike.
            let faded = [0..<min(length, exactStart), max(exactStart, exactEnd)..<length]
            for part in faded where !part.isEmpty {
                for frame in part {
                    let gain = Self.gain(frame, length: length, fadeIn: fadeIn, fadeOut: fadeOut, shape: shape)
                    for channel in 0..<channels {
                        let continuous = whole[(start + frame) * channels + channel]
                        let difference = Double(decoded[frame * channels + channel] - continuous * gain)
                        oursError += difference * difference
                        if sourceAligned, (start + frame) * channels + channel < source.count {
                            let coding = Double((continuous - source[(start + frame) * channels + channel]) * gain)
                            codecError += coding * coding
                        }
                    }
                }
            }
        }
        #expect(inexactCuts.isEmpty, "\(row): \(inexactCuts.count) cuts differ from the input outside their fades: \(inexactCuts.prefix(5))")
        #expect(copied == 100, "\(row): \(copied) of 100 cuts copied")
        let averageShare = shares.isEmpty ? 0 : shares.reduce(0, +) / shares.count
        #expect(averageShare >= 50, "\(row): \(averageShare)% of the bytes copied on average")
        if sourceAligned, copied > 0 {
            let ratio = oursError / max(codecError, 1e-30)
            print("\(row): \(copied) copied; error under the fades \(String(format: "%.1f", 10 * log10(max(ratio, 1e-30)))) dB against the input's own coding error there; \(averageShare)% of the bytes copied")
            #expect(ratio <= 1, "\(row): the error under the fades is \(ratio) times the input's own coding error")
        }
    }
}
