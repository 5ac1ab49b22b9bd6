import Foundation
import ReverseAudioCore

/// Readers side by side over frames in memory, for the ``Scheduler``'s split work without a
/// file: each reader a new ``MemorySource`` made by `make`, with faults to inject (a reader
/// that cannot open the same frames, damage met inside a segment).
package final class MemorySegmentReaders: SegmentReaders, @unchecked Sendable {
    // @unchecked: `opened` and `damage` are changed only before the work starts or under `lock`.
    private let make: () -> MemorySource
    private let first: MemorySource
    private let lock = NSLock()
    /// Readers opened besides the first.
    package private(set) var opened = 0
    /// When true, another open gives other frames (`open()` gives nil), as a file damaged at
    /// its start does.
    package var othersDiffer = false
    /// A reader whose position reaches this frame counts a problem (damage met there).
    package var damageAt: Int64?
    /// Times the first reader was rewound for one continuous decode.
    package private(set) var rewinds = 0

    /// Readers of the frames `make` gives; the first is `make()`'s.
    package init(_ make: @escaping () -> MemorySource) {
        self.make = make
        first = make()
    }

    /// The job's own reader.
    package var source: MemorySource { first }

    package var main: SegmentReader { reader(first) }

    package func open() throws -> SegmentReader? {
        lock.withLock { opened += 1 }
        return othersDiffer ? nil : reader(make())
    }

    package func rewindMain() throws {
        rewinds += 1
        try first.seek(to: 0, endingAt: nil)
    }

    private func reader(_ source: MemorySource) -> SegmentReader {
        let damageAt = damageAt
        return SegmentReader(source: source, problems: {
            guard let damageAt else { return 0 }
            return source.position > damageAt ? 1 : 0
        })
    }
}
