/// The loop as the keyboard sets it: markers `[` and `]` placed at the cursor, and `l` to
/// switch the loop on or off. The region is `[start, end)`, the whole file when a marker is
/// missing.
struct LoopMarkers: Equatable {
    var start: Int64?
    var end: Int64?
    var isOn = false

    /// The markers `--loop`, `--loop-start` and `--loop-end` give.
    init(region: Range<Int64>?, frameCount: Int64) {
        if let region {
            isOn = true
            if region.lowerBound > 0 { start = region.lowerBound }
            if region.upperBound < frameCount { end = region.upperBound }
        }
    }

    /// The loop playback should have: nil when off or when the markers make it empty.
    func region(frameCount: Int64) -> Range<Int64>? {
        guard isOn else { return nil }
        let lower = start ?? 0
        let upper = end ?? frameCount
        return lower < upper ? lower..<upper : nil
    }
}
