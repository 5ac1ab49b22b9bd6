import Foundation
import ReverseAudioCore

/// An ``AudioPlayer``'s decode thread: keeps the chunks playback needs next in the cache, so
/// the output thread finds them decoded. What to decode is the schedule's decision
/// (``PlaybackSchedule/nextRun(for:isCached:failed:)``); this thread only carries it out, and
/// sleeps when there is nothing to do until the cursor moves to another chunk or a command comes.
final class DecodeAhead: @unchecked Sendable {
    // @unchecked: `woken` only under `condition`'s lock; `failed` only on the decode thread.
    private let cache: ChunkCache
    private let control: PlayerControl
    private let condition = NSCondition()
    private var woken = false
    /// Chunks whose decode failed: not tried again here (the output thread reports the error).
    private var failed: Set<Int64> = []

    init(cache: ChunkCache, control: PlayerControl) {
        self.cache = cache
        self.control = control
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
            let state = control.status.state
            let schedule = cache.schedule
            cache.setWanted(schedule.wanted(for: state))
            if let next = schedule.nextRun(for: state, isCached: cache.isCached, failed: failed) {
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
}
