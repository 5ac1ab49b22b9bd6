import Testing
@testable import ReverseAudioPlayback

/// The scheduling rules alone, against a fake cache (a set of chunk indices).
@Suite struct PlaybackScheduleTests {
    /// 10 chunks of 100 frames, 4 ahead and 2 behind.
    static func schedule(pacing: PlaybackSchedule.Pacing = .realTime, ahead: Int = 4, behind: Int = 2,
                         capacity: Int = 24) -> PlaybackSchedule {
        PlaybackSchedule(chunkFrames: 100, frameCount: 1000, pacing: pacing, capacity: capacity, aheadChunks: ahead, behindChunks: behind)
    }

    @Test("the plan follows the direction and the loop, and looks a little the other way")
    func plan() {
        var state = PlaybackState(frameCount: 1000, position: 450)
        #expect(Self.schedule().plan(for: state) == .init(ahead: [4, 5, 6, 7], behind: [3, 2]))
        state.direction = .reverse
        #expect(Self.schedule().plan(for: state) == .init(ahead: [4, 3, 2, 1], behind: [5, 6]))
        state.setLoop(250..<520)
        #expect(Self.schedule(behind: 1).plan(for: state) == .init(ahead: [4, 3, 2, 5], behind: []))
        state.direction = .forward
        #expect(Self.schedule(ahead: 5, behind: 1).plan(for: state).ahead == [4, 5, 2, 3])
        state.seek(to: 990)
        state.setLoop(nil)
        #expect(Self.schedule(behind: 1).plan(for: state) == .init(ahead: [9], behind: [8]))
    }

    @Test("the chunk under the cursor comes first; the chunks ahead refill in one upward sweep once half are played")
    func nextRun() {
        let schedule = Self.schedule()
        var state = PlaybackState(frameCount: 1000, position: 900, direction: .reverse)
        var cached: Set<Int64> = []
        // After a seek nothing is cached: the cursor's chunk (8) first.
        #expect(schedule.nextRun(for: state, isCached: cached.contains) == 8)
        cached.insert(8)
        // Then the missing ones ahead (7, 6, 5) from the lowest: one seek, decoding upwards.
        #expect(schedule.nextRun(for: state, isCached: cached.contains) == 5)
        cached.formUnion([5, 6, 7])
        // Then behind (9).
        #expect(schedule.nextRun(for: state, isCached: cached.contains) == 9)
        cached.insert(9)
        #expect(schedule.nextRun(for: state, isCached: cached.contains) == nil)
        // Played one chunk of four: not yet half, nothing to do although 4 is missing.
        state.seek(to: 800)
        #expect(schedule.plan(for: state).ahead == [7, 6, 5, 4])
        #expect(schedule.nextRun(for: state, isCached: cached.contains) == nil)
        // Played two: the sweep refills from the lowest missing chunk.
        state.seek(to: 700)
        #expect(schedule.nextRun(for: state, isCached: cached.contains) == 3)
        // A chunk that failed is not tried again.
        #expect(schedule.nextRun(for: state, isCached: cached.contains, failed: [3, 4]) == nil)
    }

    @Test("a miss decodes one chunk forwards; backwards, back to the last multiple of the span")
    func runOnMiss() {
        let none: (Int64) -> Bool = { _ in false }
        #expect(Self.schedule(pacing: .asFastAsPossible).runOnMiss(57, direction: .forward, isCached: none) == 57...57)
        #expect(Self.schedule(pacing: .asFastAsPossible).missSpan == 22, "the capacity (24) less 2")
        let rendering = Self.schedule(pacing: .asFastAsPossible, capacity: PlaybackSchedule.renderingCapacity)
        #expect(rendering.missSpan == 100)
        #expect(rendering.runOnMiss(157, direction: .reverse, isCached: none) == 100...157)
        #expect(Self.schedule(pacing: .asFastAsPossible, capacity: 22).runOnMiss(57, direction: .reverse, isCached: none) == 40...57)
        // Cached chunks at the start of the run are not decoded again.
        #expect(Self.schedule(pacing: .asFastAsPossible, capacity: 22).runOnMiss(57, direction: .reverse, isCached: { $0 < 45 }) == 45...57)
        // Under a player the decode-ahead thread brings the rest: one chunk.
        #expect(Self.schedule(pacing: .realTime).runOnMiss(57, direction: .reverse, isCached: none) == 57...57)
        // The span never exceeds what the cache holds.
        #expect(Self.schedule(pacing: .asFastAsPossible, capacity: 8).missSpan == 6)
    }

    @Test("eviction drops the least recently used chunk not wanted, never the one just stored")
    func victim() {
        let schedule = Self.schedule()
        #expect(schedule.victim(recency: [1, 2, 3, 4], wanted: [1, 2], keeping: 4) == 3)
        #expect(schedule.victim(recency: [1, 2, 3, 4], wanted: [1, 2, 3, 4], keeping: 1) == 2)
        #expect(schedule.victim(recency: [4], wanted: [], keeping: 4) == nil)
        // What is wanted leaves room for two chunks being decoded.
        let state = PlaybackState(frameCount: 1000, position: 450)
        #expect(Self.schedule(ahead: 12, behind: 12, capacity: 6).wanted(for: state).count == 4)
    }
}
