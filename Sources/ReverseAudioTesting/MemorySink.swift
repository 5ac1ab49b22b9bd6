import Foundation
import ReverseAudioCore

/// A sink that keeps what it is given in memory: frames in order (``PCMSink``) or at any
/// position (``PositionedPCMSink``, as a WAV file being written takes them), with a fault to
/// inject. What the scheduler and the placements wrote is then read back as bytes or samples.
package final class MemorySink: PCMSink, PositionedPCMSink, @unchecked Sendable {
    // @unchecked: the placements write from several threads, each write under `lock`.
    package let format: PCMFormat
    private let lock = NSLock()
    private var storage: [UInt8] = []
    private var writeCount = 0
    private var chunkPositions: [Int64] = []
    /// Whether the sink takes positioned writes; false for an encoder's or a pipe's order.
    private let takesPositions: Bool
    /// Throws on this write (counting from 1), as a full disk would.
    package var failOnWrite: Int?
    /// Cancels `flag` on write `write` (counting from 1): a cancellation that arrives mid-work.
    package var cancelOnWrite: (write: Int, flag: CancellationFlag)?
    package private(set) var finished = false
    package private(set) var cancelled = false
    /// Times it was asked to start over or discard what it holds (a second pass).
    package private(set) var restarts = 0

    /// A sink of `format`; `positioned` for one that takes frames at any position.
    package init(format: PCMFormat, positioned: Bool = true) {
        self.format = format
        takesPositions = positioned
    }

    package var bytes: [UInt8] { lock.withLock { storage } }
    package var writes: Int { lock.withLock { writeCount } }
    /// The positions of the chunks written in order, as they came.
    package var positions: [Int64] { lock.withLock { chunkPositions } }

    /// The bytes as 16-bit samples (for an `.s16` format).
    package var samples: [Int16] {
        let held = bytes
        return held.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    package var positioned: (any PositionedPCMSink)? { takesPositions ? self : nil }
    package var canStartOver: Bool { true }

    package func write(_ chunk: PCMChunk) throws {
        try lock.withLock {
            try count()
            chunkPositions.append(chunk.position)
            storage += chunk.bytes
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws {
        try lock.withLock {
            try count()
            let start = Int(frame) * format.bytesPerFrame
            if storage.count < start + bytes.count { storage += [UInt8](repeating: 0, count: start + bytes.count - storage.count) }
            storage.replaceSubrange(start..<(start + bytes.count), with: bytes)
        }
    }

    package func discardWrites(expectingFrames frames: Int64) throws {
        lock.withLock { storage = []; restarts += 1 }
    }

    package func startOver(expectingFrames frames: Int64) throws {
        try discardWrites(expectingFrames: frames)
    }

    package func finish() throws { lock.withLock { finished = true } }
    package func cancel() { lock.withLock { cancelled = true } }

    private func count() throws {
        writeCount += 1
        if let cancelOnWrite, cancelOnWrite.write == writeCount { cancelOnWrite.flag.cancel() }
        if writeCount == failOnWrite { throw ReverseAudioError.output(.writeFailed(path: "memory", reason: "no space left on device")) }
    }
}
