import Foundation

/// An ``AudioPlayer``'s decode thread: keeps the chunks playback needs next in the cache, so
/// the output thread finds them decoded.
///
/// From the status the output thread publishes it plans (``ChunkPlan``) ``aheadChunks`` chunks
/// in the playing direction, loop wraps included, and ``behindChunks`` the other way, and
/// tells the cache to keep them. The chunk under the cursor comes first when it is missing
/// (after a seek). The chunks ahead are refilled when half of them have been played, all in
/// one sweep from the lowest missing one upwards, so that playing backwards costs one seek per
/// sweep instead of one per chunk. Then the chunks behind, for a toggle or a short scrub.
final class DecodeAhead: @unchecked Sendable {
    // @unchecked: `woken` only under `condition`'s lock; `failed` only on the decode thread.
    private let cache: ChunkCache
    private let control: PlayerControl
    private let condition = NSCondition()
    private var woken = false
    /// Chunks whose decode failed: not tried again here (the output thread reports the error).
    private var failed: Set<Int64> = []
    let aheadChunks: Int
    let behindChunks: Int

    init(cache: ChunkCache, control: PlayerControl, aheadChunks: Int = 12, behindChunks: Int = 3) {
        self.cache = cache
        self.control = control
        self.aheadChunks = min(aheadChunks, cache.capacity / 2)
        self.behindChunks = behindChunks
    }

    /// Asks for a new plan now (the cursor moved to another chunk, or a command came).
    func wake() {
        condition.lock()
        woken = true
        condition.signal()
        condition.unlock()
    }

    /// The thread's loop, until the player stops.
    func run() {
        while !control.isStopping {
            let plan = ChunkPlan(state: control.status.state, chunkFrames: Int64(cache.chunkFrames),
                                 aheadChunks: aheadChunks, behindChunks: behindChunks)
            cache.setWanted(plan.all)
            if let next = nextChunk(in: plan) {
                do {
                    try cache.prefetch(next)
                } catch {
                    failed.insert(next)
                }
                continue
            }
            condition.lock()
            if !woken { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05)) }
            woken = false
            condition.unlock()
        }
    }

    /// The chunk to decode next, or nil when the plan is covered.
    func nextChunk(in plan: ChunkPlan) -> Int64? {
        let ahead = plan.ahead.filter { !failed.contains($0) }
        guard let current = ahead.first else { return nil }
        if !cache.isCached(current) { return current }
        let missing = ahead.filter { !cache.isCached($0) }
        let leading = ahead.prefix { cache.isCached($0) }.count
        if let first = missing.first, leading <= ahead.count / 2 {
            return lowestOfRun(containing: first, in: missing)
        }
        let behind = plan.behind.filter { !failed.contains($0) && !cache.isCached($0) }
        if let first = behind.first { return lowestOfRun(containing: first, in: behind) }
        return nil
    }

    /// The lowest index of the consecutive run of `missing` that holds `index`: decoding starts
    /// there and continues upwards without another seek.
    private func lowestOfRun(containing index: Int64, in missing: [Int64]) -> Int64 {
        var start = index
        while missing.contains(start - 1) { start -= 1 }
        return start
    }
}
