import CFFmpeg

/// A fraction as FFmpeg keeps time bases, frame rates and aspect ratios, copied out of C memory.
package struct Rational: Sendable, Equatable, Hashable, CustomStringConvertible {
    package let numerator: Int32
    package let denominator: Int32

    package init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    init(_ value: AVRational) {
        self.init(value.num, value.den)
    }

    var av: AVRational { AVRational(num: numerator, den: denominator) }

    /// True when both parts are positive (FFmpeg uses 0/1 or 0/0 for "unknown").
    package var isValid: Bool { numerator > 0 && denominator > 0 }

    package var doubleValue: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    /// The reciprocal (a frame rate's frame duration).
    package var inverted: Rational { Rational(denominator, numerator) }

    package var description: String { "\(numerator)/\(denominator)" }

    /// Converts `value` from this time base to `other`, rounding to nearest as FFmpeg does.
    package func rescale(_ value: Int64, to other: Rational) -> Int64 {
        av_rescale_q(value, av, other.av)
    }
}
