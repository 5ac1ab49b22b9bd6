import ReverseAudioCore

/// What playback decodes next and what it keeps, decided from the playback state and which
/// chunks are cached: the one place where these rules and their constants live. Pure: no
/// decoding, no threads, no clock, so it is tested against a fake cache.
///
/// Chunk `k` holds frames `k × chunkFrames ..< (k + 1) × chunkFrames`. Three decisions:
/// - ``plan(for:)``: the chunks playback needs, ``Plan/ahead`` in the playing direction (loop
///   wraps included) and ``Plan/behind`` the other way, for a toggle or a short scrub. The
///   cache keeps them whatever their age.
/// - ``nextRun(for:isCached:failed:)``: the first chunk the decode-ahead thread decodes next.
///   The chunk under the cursor first (after a seek); the chunks ahead are refilled when half
///   of them have been played, in one upward sweep from the lowest missing one (playing
///   backwards costs one seek per sweep, not one per chunk); then those behind.
/// - ``runOnMiss(_:direction:isCached:)``: the chunks to decode when the cursor's chunk is
///   missing. Backwards, the missing chunks before it back to the last multiple of
///   ``missSpan`` come too (one seek for all: they are needed next). Aligned runs put the
///   file's first chunks in one run from frame 0, decoded exactly as the continuous decode.
struct PlaybackSchedule: Sendable, Equatable {
    /// How playback is paced, which decides how much a miss decodes at once.
    enum Pacing: Sendable, Equatable {
        /// A device plays in real time; a decode-ahead thread brings the chunks.
        case realTime
        /// Rendering as fast as possible: nothing decodes ahead.
        case asFastAsPossible
    }

    /// Frames per chunk.
    let chunkFrames: Int64
    /// Chunks in the file.
    let chunkCount: Int64
    /// Chunks kept at most.
    let capacity: Int
    /// Chunks kept decoded ahead of the cursor, in the playing direction.
    let aheadChunks: Int
    /// Chunks kept decoded the other way.
    let behindChunks: Int
    /// Chunks decoded with one seek when playing backwards finds its chunk missing: many when
    /// rendering as fast as possible (fewer seeks), one under a player (the decode-ahead thread
    /// brings the rest; the device is waiting).
    let missSpan: Int

    /// Chunks kept at most, by default, under a player.
    static let defaultCapacity = 24

    /// Chunks kept at most when rendering as fast as possible a file whose seeks search it, and
    /// the chunks a backwards miss then decodes with one seek: 100 (6.4 MiB of stereo s16). Such
    /// a seek costs about a millisecond (a FLAC file's binary search of its frames), so an hour
    /// played backwards in spans of 20 chunks (486 seeks) took 1.24× the forward decode; 100
    /// leaves 97. Files with an index to seek by keep ``defaultCapacity``.
    static let renderingCapacity = 104
    static let renderingMissSpan = 100

    /// The schedule for a file of `frameCount` frames in chunks of `chunkFrames`.
    /// - Parameters:
    ///   - aheadChunks: chunks kept decoded ahead (at most half the capacity).
    ///   - behindChunks: chunks kept decoded the other way.
    init(chunkFrames: Int, frameCount: Int64, pacing: Pacing, capacity: Int = PlaybackSchedule.defaultCapacity,
         aheadChunks: Int = 12, behindChunks: Int = 3) {
        self.chunkFrames = Int64(max(chunkFrames, 1))
        chunkCount = (max(frameCount, 0) + self.chunkFrames - 1) / self.chunkFrames
        self.capacity = max(4, capacity)
        self.aheadChunks = min(aheadChunks, self.capacity / 2)
        self.behindChunks = behindChunks
        missSpan = min(pacing == .realTime ? 1 : Self.renderingMissSpan, self.capacity - 2)
    }

    /// The chunk holding `frame`.
    func chunk(holding frame: Int64) -> Int64 { frame / chunkFrames }

    /// The chunks playback will need.
    struct Plan: Sendable, Equatable {
        /// The chunk under the cursor first, then the next ones in playing order.
        let ahead: [Int64]
        /// Chunks the other way from the cursor, nearest first, not already in ``ahead``.
        let behind: [Int64]

        /// Every wanted chunk: ``ahead`` then ``behind``.
        var all: [Int64] { ahead + behind }
    }

    /// The chunks needed next from `state`: ahead in its direction, and a few behind.
    func plan(for state: PlaybackState) -> Plan {
        let ahead = walk(from: state, count: aheadChunks)
        var other = state
        other.direction = state.direction == .forward ? .reverse : .forward
        return Plan(ahead: ahead, behind: walk(from: other, count: behindChunks + 1).filter { !ahead.contains($0) })
    }

    /// The chunks to keep whatever their age: the plan, as many as leave room to decode.
    func wanted(for state: PlaybackState) -> Set<Int64> {
        Set(plan(for: state).all.prefix(capacity - 2))
    }

    /// The chunk the decode-ahead thread should decode next (decoding on upwards from there
    /// needs no seek), or nil when the plan is covered.
    func nextRun(for state: PlaybackState, isCached: (Int64) -> Bool, failed: Set<Int64> = []) -> Int64? {
        let plan = plan(for: state)
        let ahead = plan.ahead.filter { !failed.contains($0) }
        guard let current = ahead.first else { return nil }
        if !isCached(current) { return current }
        let missing = ahead.filter { !isCached($0) }
        let leading = ahead.prefix { isCached($0) }.count
        if let first = missing.first, leading <= ahead.count / 2 {
            return lowestOfRun(containing: first, in: missing)
        }
        let behind = plan.behind.filter { !failed.contains($0) && !isCached($0) }
        if let first = behind.first { return lowestOfRun(containing: first, in: behind) }
        return nil
    }

    /// The chunks to decode, in order, when chunk `index` is needed now and missing.
    func runOnMiss(_ index: Int64, direction: PlaybackDirection, isCached: (Int64) -> Bool) -> ClosedRange<Int64> {
        guard direction == .reverse else { return index...index }
        let span = Int64(max(missSpan, 1))
        var first = index / span * span
        while first < index && isCached(first) { first += 1 }
        return first...index
    }

    /// The chunk to drop when the cache holds more than ``capacity``: the least recently used
    /// one not wanted, else the least recently used; never `keeping`.
    func victim(recency: [Int64], wanted: Set<Int64>, keeping: Int64) -> Int64? {
        recency.first { !wanted.contains($0) && $0 != keeping } ?? recency.first { $0 != keeping }
    }

    /// Chunk indices met playing from `start`, in order, each once, at most `count` of them.
    private func walk(from start: PlaybackState, count: Int) -> [Int64] {
        var state = start
        state.isPlaying = true
        var found: [Int64] = []
        // A loop inside one chunk revisits it for ever: bound the steps, not only the finds.
        var steps = 0
        while found.count < count && steps < 4 * count + 4 {
            steps += 1
            guard let first = state.advance() else { break }
            let index = first / chunkFrames
            if !found.contains(index) { found.append(index) }
            // Jump to the end of this chunk's run, as the renderer plays it.
            switch state.direction {
            case .forward:
                var end = (index + 1) * chunkFrames
                if let loop = state.loop, first < loop.upperBound { end = min(end, loop.upperBound) }
                state.seek(to: end)
            case .reverse:
                var start = index * chunkFrames
                if let loop = state.loop, first >= loop.lowerBound { start = max(start, loop.lowerBound) }
                state.seek(to: start)
            }
        }
        return found
    }

    /// The lowest index of the consecutive run of `missing` that holds `index`.
    private func lowestOfRun(containing index: Int64, in missing: [Int64]) -> Int64 {
        var start = index
        while missing.contains(start - 1) { start -= 1 }
        return start
    }
}
