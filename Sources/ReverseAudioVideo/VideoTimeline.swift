import ReverseAudioCore
import ReverseAudioFFmpeg
/// Where each output frame goes in time, so that the output's frame i lasts as long as the input
/// frame it shows.
///
/// Reversed, input frames shown at `p₀ < p₁ < … < pₙ₋₁` (the last one ending at `end`) become
/// output frames at `q(k) = base + mirror − p(k+1)`, lasting `p(k+1) − p(k)`, where `p(n) = end`:
/// a variable frame rate comes out mirrored, and the first output frame starts at `base`. The
/// frames are placed from the last to the first, so `p(k+1)` is always the frame placed just
/// before. A boomerang's reversed half uses the same rule with `mirror = pₙ₋₁` and `base` the
/// forward half's length, leaving the turn frame out.
struct ReversedTimeline {
    /// Where the first placed frame starts.
    let base: Int64
    let mirror: Int64
    /// The timestamp of the frame placed last (initially the end of the reversed run).
    private(set) var next: Int64

    /// A reversal of frames ending at `end`, starting at `base`.
    init(end: Int64, base: Int64 = 0) {
        self.base = base
        mirror = end
        next = end
    }

    /// Places the frame shown at `timestamp` (each call earlier than the one before).
    /// - Returns: its output timestamp and duration; nil for a frame not earlier than the last
    ///   one placed (it cannot be shown backwards).
    mutating func place(_ timestamp: Int64) -> (timestamp: Int64, duration: Int64)? {
        guard timestamp < next else { return nil }
        let placed = (base + mirror - next, next - timestamp)
        next = timestamp
        return placed
    }

    /// The output time after the last frame placed so far.
    var elapsed: Int64 { base + mirror - next }
}

/// The forward half of a boomerang: the input's own timing, starting at 0. A frame's duration
/// is known when the next one arrives, so frames wait here one at a time.
struct ForwardTimeline<Item> {
    private let origin: Int64
    private var waiting: (item: Item, timestamp: Int64)?

    init(origin: Int64) {
        self.origin = origin
    }

    /// Takes the frame shown at `timestamp`; returns the one before it, placed, if any.
    mutating func add(_ item: Item, at timestamp: Int64) -> (item: Item, timestamp: Int64, duration: Int64)? {
        defer { waiting = (item, timestamp) }
        guard let previous = waiting else { return nil }
        return (previous.item, previous.timestamp - origin, timestamp - previous.timestamp)
    }

    /// The last frame, placed with `duration`, and where the forward half ends.
    mutating func finish(lastDuration duration: Int64) -> (placed: (item: Item, timestamp: Int64, duration: Int64)?, end: Int64) {
        guard let last = waiting else { return (nil, 0) }
        waiting = nil
        return ((last.item, last.timestamp - origin, duration), last.timestamp + duration - origin)
    }

    /// The input timestamp of the frame waiting (the last one seen).
    var lastTimestamp: Int64? { waiting?.timestamp }
}
