import Foundation

/// A source's frames as an `AsyncSequence` of blocks, read off Swift's cooperative pool.
///
/// The source is made (by `open`) and read on a private serial queue when the first block is
/// asked for; cancelling the consuming task sets the flag `open` was given and ends the loop
/// with `CancellationError`. The source and anything it holds (FFmpeg objects, temporary files)
/// are released as soon as the sequence ends.
///
/// ```swift
/// for try await block in AudioBlocks(frames: 4096, { flag in
///     ReversedSource(try AudioFileSource(url: song, cancellation: flag), cancellation: flag)
/// }) {
///     output.schedule(block.samples)
/// }
/// ```
public struct AudioBlocks: AsyncSequence, Sendable {
    /// Each element is one block.
    public typealias Element = SampleBuffer

    /// Frames per block (the last may be short); nil for what each read lends (a decoded
    /// packet of a file).
    public let frames: Int?
    private let open: @Sendable (CancellationFlag) throws -> any PCMSource

    /// The blocks of the source `open` makes.
    public init(frames: Int? = nil, _ open: @escaping @Sendable (CancellationFlag) throws -> any PCMSource) {
        self.frames = frames
        self.open = open
    }

    /// Starts reading when the first block is asked for.
    public func makeAsyncIterator() -> Iterator {
        Iterator(session: Session(frames: frames, open: open))
    }

    /// Iterates the blocks.
    public struct Iterator: AsyncIteratorProtocol {
        let session: Session

        /// The next block; nil after the last.
        public mutating func next() async throws -> SampleBuffer? {
            try await session.next()
        }
    }

    /// Pulls blocks from a source that is not thread-safe, on a private serial queue.
    final class Session: @unchecked Sendable {
        // @unchecked: `source` and `finished` are only touched on `queue`.
        private let queue = DispatchQueue(label: "ReverseAudio.AudioBlocks")
        private let flag = CancellationFlag()
        private let frames: Int?
        private let open: @Sendable (CancellationFlag) throws -> any PCMSource
        private var source: (any PCMSource)?
        private var finished = false

        init(frames: Int?, open: @escaping @Sendable (CancellationFlag) throws -> any PCMSource) {
            self.frames = frames
            self.open = open
        }

        func next() async throws -> SampleBuffer? {
            try await withTaskCancellationHandler {
                try Task.checkCancellation()
                return try await withCheckedThrowingContinuation { continuation in
                    queue.async { [self] in
                        continuation.resume(with: Result { try pull() })
                    }
                }
            } onCancel: { [flag] in
                flag.cancel()
            }
        }

        private func pull() throws -> SampleBuffer? {
            guard !finished else { return nil }
            do {
                if source == nil { source = try open(flag) }
                if flag.isCancelled { throw CancellationError() }
                let block: SampleBuffer?
                if let frames {
                    block = try source!.readBlock(frames: frames)
                } else {
                    block = try source!.read(maximumFrames: .max).map { SampleBuffer($0, format: source!.format) }
                }
                guard let block else {
                    finish()
                    return nil
                }
                return block
            } catch {
                finish()
                throw error
            }
        }

        /// Releases the source (and with it any FFmpeg objects or temporary files) right away.
        private func finish() {
            finished = true
            source = nil
        }
    }
}
