/// The chunks playback will need next, found by running ``PlaybackState``'s rules ahead of
/// the cursor: in the current direction with loop wraps (``ahead``, in the order they will be
/// played), and a little the other way (``behind``), for a toggle.
struct ChunkPlan: Equatable {
    /// The chunk under the cursor first, then the next ones in playing order.
    let ahead: [Int64]
    /// Chunks the other way from the cursor, nearest first, not already in ``ahead``.
    let behind: [Int64]

    init(state: PlaybackState, chunkFrames: Int64, aheadChunks: Int, behindChunks: Int) {
        let ahead = Self.walk(from: state, chunkFrames: chunkFrames, count: aheadChunks)
        var other = state
        other.direction = state.direction == .forward ? .reverse : .forward
        self.ahead = ahead
        behind = Self.walk(from: other, chunkFrames: chunkFrames, count: behindChunks + 1).filter { !ahead.contains($0) }
    }

    init(ahead: [Int64], behind: [Int64]) {
        self.ahead = ahead
        self.behind = behind
    }

    /// Every wanted chunk: ``ahead`` then ``behind``.
    var all: [Int64] { ahead + behind }

    /// Chunk indices met playing from `start`, in order, each once, at most `count` of them.
    private static func walk(from start: PlaybackState, chunkFrames: Int64, count: Int) -> [Int64] {
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
            // Jump to the end of this chunk's run, as the renderer would play it.
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
}
