import Foundation

/// A fade at the start (in) or the end (out) of what is heard, as SoX's `fade`, in its shapes:
/// frame `i` of a fade-in of `L` frames is multiplied by `shape(i / L)`, frame `j` of a
/// fade-out (counted from its start) by `shape((L − j) / L)`, rounded to the output's sample
/// format. `sox -D IN OUT fade SHAPE IN-LENGTH -0 OUT-LENGTH` is the oracle.
///
/// ```swift
/// options.effects = [Fade(.in, length: .seconds(0.5)), Fade(.out, length: .seconds(2), shape: .quarterSine)]
/// ```
public struct Fade: AudioEffect, Equatable {
    /// Which end of the output fades.
    public enum End: String, Sendable {
        /// The start: from silence up to full level.
        case `in`
        /// The end: from full level down to silence.
        case out
    }

    /// SoX's fade curves, by SoX's letters.
    public enum Shape: String, Sendable, CaseIterable {
        /// `t`: linear.
        case triangle = "t"
        /// `q`: a quarter of a sine wave, 0 to π/2.
        case quarterSine = "q"
        /// `h`: half a (co)sine wave.
        case halfSine = "h"
        /// `l`: logarithmic, from −100 dB (SoX's default).
        case logarithmic = "l"
        /// `p`: an inverted parabola.
        case parabola = "p"

        /// The gain at `position` in 0...1 of the way up.
        func gain(_ position: Double) -> Double {
            let x = min(1, max(0, position))
            switch self {
            case .triangle: return x
            case .quarterSine: return sin(x * .pi / 2)
            case .halfSine: return (1 - cos(x * .pi)) / 2
            case .logarithmic: return pow(0.1, (1 - x) * 5)
            case .parabola: return 1 - (1 - x) * (1 - x)
            }
        }
    }

    /// The end that fades.
    package let end: End
    /// How long the fade lasts (seconds, or frames at the source's rate).
    package let length: TimePosition
    /// The curve.
    package let shape: Shape

    /// A fade at `end` lasting `length`, of `shape` (SoX's default: logarithmic).
    public init(_ end: End, length: TimePosition, shape: Shape = .logarithmic) {
        self.end = end
        self.length = length
        self.shape = shape
    }

    /// "fade-in 0.500 s (l)".
    public var description: String { "fade-\(end.rawValue) \(length) (\(shape.rawValue))" }

    /// `source` with the fade where it is heard: at its start or end, or, when `mirrored`, at
    /// the other end of the source (the chain reverses it after).
    /// - Throws: ``InputError/lengthUnknown(path:reason:)`` for a fade-out of a source
    ///   whose end nothing tells before it comes.
    public func applied(to source: any PCMSource, mirrored: Bool) throws -> any PCMSource {
        if end == .out || mirrored, source.length.frames == nil {
            throw ReverseAudioError.input(.lengthUnknown(path: "", reason: "a fade at the end needs to know where the end is"))
        }
        return source.fade(end, frames: length.frame(atRate: source.format.sampleRate), shape: shape, mirrored: mirrored)
    }
}

extension PCMSource {
    /// This source with a fade of `frames` frames at `end` of what is heard (the source's own
    /// end, or when `mirrored` the other one).
    package func fade(_ end: Fade.End, frames: Int64, shape: Fade.Shape, mirrored: Bool) -> ScaledSource {
        let span = Double(max(frames, 1))
        return ScaledSource(self) { frame, length in
            // The frame's place in what is heard, and the frames heard after it.
            let total = length ?? .max
            let heard = mirrored ? total - 1 - frame : frame
            switch end {
            case .in: return heard < frames ? shape.gain(Double(heard) / span) : 1
            case .out:
                let fromEnd = total - heard
                return fromEnd <= frames ? shape.gain(Double(fromEnd) / span) : 1
            }
        }
    }
}

extension Fade {
    /// Refuses the fades among `effects` when a fade-in and a fade-out together (or one alone)
    /// last longer than the `frames` heard. Such fades would overlap: each frame would get both
    /// gains multiplied, and a long logarithmic fade over a short cut leaves every sample 0, a
    /// file written "successfully" that is silent. SoX refuses the overlap ("fade-out overlaps
    /// fade-in"); scaling the fades to fit would make a fade the user did not ask for.
    /// Fades that just meet (1 s in, 1 s out, 2 s heard) are fine.
    /// - Parameters:
    ///   - effects: one list applied to one stretch of audio (a piece's own, or the output's).
    ///   - frames: how many frames that stretch holds.
    ///   - sampleRate: the rate the fades' times are counted at.
    ///   - name: the file named in the message.
    /// - Throws: ``RangeError/fadesLongerThanHeard(path:fadeIn:fadeOut:length:sampleRate:)``.
    package static func checkFit(of effects: [any AudioEffect], within frames: Int64, sampleRate: Int, name: String) throws {
        var fadeIn: Int64 = 0
        var fadeOut: Int64 = 0
        for case let fade as Fade in effects {
            // Two fades at one end overlap each other, not the other end: the longer counts.
            let length = max(0, fade.length.frame(atRate: sampleRate))
            if fade.end == .in { fadeIn = max(fadeIn, length) } else { fadeOut = max(fadeOut, length) }
        }
        // Each is at most 2^61 (saturated): the sum cannot overflow.
        guard fadeIn + fadeOut > max(frames, 0) else { return }
        throw ReverseAudioError.range(.fadesLongerThanHeard(path: name, fadeIn: fadeIn, fadeOut: fadeOut, length: frames,
                                                           sampleRate: sampleRate))
    }
}
