/// What libavcodec emits for a run of packets once it applies their gapless trimming
/// (`AV_PKT_DATA_SKIP_SAMPLES`, libavcodec's `discard_samples`): a packet that carries the side
/// data *sets* the start samples still to skip (it does not add to them: at 22.05 kHz a LAME
/// delay of 1105 spans two 576-sample frames, and a second packet that carries its own side data
/// ends the skip early); the skip may span several frames; end padding applies to its own frame,
/// and only when it is no longer than what is left of that frame. The model the packet count
/// and the packet index share.
struct GaplessTrimming {
    /// Start samples still to skip, carried to the next frames.
    private var pendingSkip: Int64 = 0

    /// The samples a frame of `decoded` samples emits, given its packet's side data, and how
    /// many were trimmed from its start.
    mutating func trim(_ decoded: Int64, skip: (start: Int, end: Int)?) -> (emitted: Int64, trimmedStart: Int64) {
        if let skip { pendingSkip = Int64(skip.start) }
        let trimmedStart = min(pendingSkip, decoded)
        pendingSkip -= trimmedStart
        let left = decoded - trimmedStart
        let end = Int64(skip?.end ?? 0)
        return (end > 0 && end <= left ? left - end : left, trimmedStart)
    }

    /// The samples a frame of `decoded` samples emits, given its packet's side data.
    mutating func emitted(_ decoded: Int64, skip: (start: Int, end: Int)?) -> Int64 {
        trim(decoded, skip: skip).emitted
    }
}
