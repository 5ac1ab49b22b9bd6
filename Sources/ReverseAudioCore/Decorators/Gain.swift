import Foundation

/// A change of level by a number of decibels, as `sox … gain DB`: every sample multiplied by
/// 10^(dB/20), rounded to the output's sample format and clipped.
///
/// ```swift
/// options.effects = [Gain(decibels: -3)]
/// ```
public struct Gain: AudioEffect, Equatable {
    /// The change, in decibels (negative: quieter).
    package let decibels: Double

    /// A gain of `decibels` dB.
    public init(decibels: Double) {
        self.decibels = decibels
    }

    /// "gain -3 dB".
    public var description: String { "gain \(decibels.formatted()) dB" }

    /// The samples of `source` scaled by the gain (the same forwards and reversed).
    public func applied(to source: any PCMSource, mirrored: Bool) throws -> any PCMSource {
        source.gain(decibels: decibels)
    }
}

extension PCMSource {
    /// This source `decibels` dB louder (or quieter).
    package func gain(decibels: Double) -> ScaledSource {
        let factor = pow(10, decibels / 20)
        return ScaledSource(self) { _, _ in factor }
    }
}

extension Double {
    /// The shortest text that reads back as this value: "-3", "0.5".
    fileprivate func formatted() -> String {
        self == rounded() && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}
