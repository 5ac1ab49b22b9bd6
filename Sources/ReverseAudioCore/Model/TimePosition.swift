import Foundation

/// A point or length on an audio timeline, as people write it: seconds (`12.5`),
/// `[[hh:]mm:]ss[.fff]` (`1:02.5`), or a frame count with an `s` suffix (`66150s`, as in SoX).
///
/// Text is read strictly (``init(parsing:maximumSeconds:limitName:)``): digits, one decimal point, an
/// exponent in the seconds form, nothing else (no sign, no `inf`, no hexadecimal, no control
/// character such as NUL), and never more than ``maximumSeconds`` or the frames form's own bound, so that
/// no later conversion can overflow. ``frame(atRate:)`` saturates rather than traps for values
/// built in code.
public enum TimePosition: Sendable, Equatable, CustomStringConvertible {
    /// A time in seconds; its frame is `round(seconds × rate)`.
    case seconds(Double)
    /// A frame index (or count), whatever the rate.
    case frames(Int64)

    /// The longest time text may name in seconds or clock form: 1,000,000 s (277:46:40, about
    /// 11.6 days), longer than any file FFmpeg's formats hold in practice.
    public static let maximumSeconds: Double = 1_000_000
    /// The most frames text may name in the frames form (`Ns`): 10^12 (about 227 days at 48 kHz).
    package static let maximumFrames: Int64 = 1_000_000_000_000
    /// Where ``frame(atRate:)`` saturates (2^61): far beyond any limit above, and small enough
    /// that sums of a few such frames (a start plus a duration) cannot overflow.
    package static let saturatedFrame: Int64 = 1 << 61

    /// Why text is not a time, naming the text and the rule it breaks.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The text as given (control characters escaped).
        public let text: String
        /// What is wrong with it.
        public let reason: String
        /// True when the text is a well-formed time, only too large (the limit is in ``reason``).
        package let isPastLimit: Bool

        /// "'1e15' is not a time: …" or "'1e15' is …, more than …".
        public var description: String { "'\(text)' \(reason)" }
    }

    /// The accepted forms, for messages.
    package static let forms = "seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"

    /// Parses `text`; nil when it is none of the accepted forms, negative or past the limits.
    package init?(_ text: String) {
        guard let parsed = try? TimePosition(parsing: text) else { return nil }
        self = parsed
    }

    /// Parses `text` strictly.
    /// - Parameters:
    ///   - text: seconds, `[[hh:]mm:]ss[.fff]`, or frames with an `s` suffix; spaces around it
    ///     are ignored.
    ///   - maximumSeconds: the longest time accepted in seconds or clock form (at most
    ///     ``maximumSeconds``); the frames form has a bound of its own.
    ///   - limitName: what the limit is, for the message ("the longest silence").
    /// - Throws: ``ParseError`` naming the text and the reason (a control character, a sign, a
    ///   malformed number, a time past the limit).
    public init(parsing text: String, maximumSeconds: Double = TimePosition.maximumSeconds,
                limitName: String = "the longest time accepted") throws(ParseError) {
        let shown = ControlEscaping.escaped(text)
        func fail(_ reason: String, pastLimit: Bool = false) -> ParseError {
            ParseError(text: shown, reason: reason, isPastLimit: pastLimit)
        }
        let limit = Swift.min(maximumSeconds, TimePosition.maximumSeconds)
        let scalars = text.unicodeScalars
        if let control = scalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw fail("holds a control character (\(ControlEscaping.escaped(String(control)))); write \(TimePosition.forms)")
        }
        let trimmed = Substring(text).drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        let body = String(trimmed)
        guard !body.isEmpty else { throw fail("is not a time: write \(TimePosition.forms)") }
        if body.hasPrefix("-") { throw fail("is negative; it must be 0 or more (times count from 0)") }
        guard body.unicodeScalars.allSatisfy(\.isASCII) else { throw fail("is not a time: write \(TimePosition.forms)") }
        let bytes = Array(body.utf8)
        if bytes.last == UInt8(ascii: "s") {
            let digits = bytes.dropLast()
            guard !digits.isEmpty, digits.allSatisfy(TimePosition.isDigit) else {
                throw fail("is not a frame count: write digits before the s (66150s)")
            }
            // Leading zeros name no frames: only the digits after them count towards the limit.
            let significant = digits.drop { $0 == UInt8(ascii: "0") }
            guard significant.count <= 13, let frames = Int64(significant.isEmpty ? "0" : String(decoding: significant, as: UTF8.self)),
                  frames <= TimePosition.maximumFrames else {
                throw fail("is more frames than the most a time may name, \(TimePosition.maximumFrames)s", pastLimit: true)
            }
            self = .frames(frames)
            return
        }
        let parts = bytes.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { throw fail("is not a time: write \(TimePosition.forms)") }
        guard let last = TimePosition.decimal(parts.last!, exponentAllowed: parts.count == 1) else {
            throw fail("is not a time: write \(TimePosition.forms)")
        }
        var seconds = last
        if parts.count > 1 {
            guard last < 60 else { throw fail("has \(TimePosition.format(last)) in its seconds field: write less than 60 after a colon") }
            var unit = 60.0
            for part in parts.dropLast().reversed() {
                guard !part.isEmpty, part.count <= 12, part.allSatisfy(TimePosition.isDigit),
                      let value = Double(String(decoding: part, as: UTF8.self)) else {
                    throw fail("is not a time: write \(TimePosition.forms)")
                }
                seconds += value * unit
                unit *= 60
            }
        }
        guard seconds.isFinite, seconds <= limit else {
            throw fail("is more than \(limitName), \(TimePosition.format(limit)) s (\(TimePosition.clock(limit)))",
                       pastLimit: true)
        }
        self = .seconds(seconds)
    }

    /// The frame this position names at `sampleRate`: `round(seconds × rate)`, saturating at
    /// the largest frame any file can hold (a time made in code may be anything; parsed text is far below).
    public func frame(atRate sampleRate: Int) -> Int64 {
        switch self {
        case .seconds(let seconds):
            let value = (seconds * Double(sampleRate)).rounded()
            guard !value.isNaN else { return 0 }
            let bound = Double(TimePosition.saturatedFrame)
            return value >= bound ? TimePosition.saturatedFrame : (value <= -bound ? -TimePosition.saturatedFrame : Int64(value))
        case .frames(let frames):
            return Swift.max(-TimePosition.saturatedFrame, Swift.min(frames, TimePosition.saturatedFrame))
        }
    }

    /// The frame that holds this instant at `sampleRate`, `floor(seconds × rate)`, where
    /// ``frame(atRate:)`` rounds to the nearest: for telling whether a time is before an end
    /// that rounding would reach. A time on the frame grid stays on it: the product's own
    /// rounding error (a few units in the last place, as for 0.29 × 44100 = 12788.999…98) is
    /// taken for the grid frame.
    package func heldFrame(atRate sampleRate: Int) -> Int64 {
        guard case .seconds(let seconds) = self else { return frame(atRate: sampleRate) }
        let value = seconds * Double(sampleRate)
        // NaN, infinities and values past the saturation point: as ``frame(atRate:)`` has them.
        guard value.isFinite, abs(value) < Double(TimePosition.saturatedFrame) else { return frame(atRate: sampleRate) }
        let nearest = value.rounded()
        // Both factors are exact to half a unit in the last place: their product to about two.
        if abs(value - nearest) <= 4 * nearest.ulp { return Int64(nearest) }
        return Int64(value.rounded(.down))
    }

    /// True for a zero length in either form.
    package var isZero: Bool { self == .seconds(0) || self == .frames(0) }

    /// True when this position is at or before `other` whatever the rate: decided only when
    /// both are in the same form (seconds against frames depends on the rate).
    package func comesNoLaterThan(_ other: TimePosition) -> Bool {
        switch (self, other) {
        case (.seconds(let a), .seconds(let b)): return a <= b
        case (.frames(let a), .frames(let b)): return a <= b
        case (.seconds(let a), .frames(0)): return a <= 0
        case (.frames(let a), .seconds(0)): return a <= 0
        default: return false
        }
    }

    /// "12.500 s" or "66150s".
    public var description: String {
        switch self {
        case .seconds(let seconds): return String(format: "%.3f s", seconds)
        case .frames(let frames): return "\(frames)s"
        }
    }

    // MARK: Reading and writing numbers

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// `digits[.digits]` or `.digits`, with `e[+-]digits` after it when allowed; nil otherwise.
    private static func decimal(_ bytes: ArraySlice<UInt8>, exponentAllowed: Bool) -> Double? {
        var mantissa = bytes[...]
        var exponent: ArraySlice<UInt8> = []
        if let marker = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            guard exponentAllowed else { return nil }
            mantissa = bytes[..<marker]
            exponent = bytes[(marker + 1)...]
            if let sign = exponent.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { exponent = exponent.dropFirst() }
            guard !exponent.isEmpty, exponent.count <= 6, exponent.allSatisfy(isDigit) else { return nil }
        }
        let pieces = mantissa.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard mantissa.filter({ $0 == UInt8(ascii: ".") }).count <= 1,
              pieces.allSatisfy({ $0.allSatisfy(isDigit) }), pieces.contains(where: { !$0.isEmpty }) else { return nil }
        // Only digits, one point and an exponent reach the conversion: nothing it could stop at.
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite || value == .infinity else { return nil }
        return value
    }

    /// "86400" or "0.5": a number of seconds without needless digits.
    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    /// "24:00:00" for a whole number of seconds.
    private static func clock(_ seconds: Double) -> String {
        let whole = Int64(Swift.min(seconds, 1e15))
        return String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60)
    }
}
