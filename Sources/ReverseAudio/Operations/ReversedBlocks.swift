import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// A file's reversed audio as blocks, first block first (the last may be short), the seed's
/// reverser as an `AsyncSequence`: the file is decoded once, forwards, its frames placed at their
/// mirrored places in an unnamed temporary file (flat memory), and read back off Swift's
/// cooperative pool. Cancelling the consuming task stops the decode; the temporary file goes as
/// soon as the sequence ends. Made by ``AudioReverser/reversedBlocks(of:frames:)``.
public struct ReversedBlocks: AsyncSequence, Sendable {
    /// Each element is one block.
    public typealias Element = SampleBuffer

    let url: URL
    let frames: Int?
    let options: ConversionOptions

    /// Starts decoding when the first block is asked for.
    public func makeAsyncIterator() -> Iterator {
        Iterator(session: Session(url: url, frames: frames, options: options))
    }

    /// Iterates the blocks.
    public struct Iterator: AsyncIteratorProtocol {
        let session: Session

        /// The next block; nil after the last.
        public mutating func next() async throws -> SampleBuffer? {
            try await session.next()
        }
    }

    /// Pulls blocks from a reversal (not thread-safe) on a private serial queue.
    final class Session: @unchecked Sendable {
        // @unchecked: `source` and `finished` are only touched on `queue`.
        private let queue = DispatchQueue(label: "ReverseAudio.ReversedBlocks")
        private let flag = CancellationFlag()
        private let url: URL
        private let frames: Int?
        private let options: ConversionOptions
        private var source: (any PCMSource)?
        private var blockFrames = 0
        private var finished = false

        init(url: URL, frames: Int?, options: ConversionOptions) {
            self.url = url
            self.frames = frames
            self.options = options
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
                if source == nil { try open() }
                if flag.isCancelled { throw CancellationError() }
                guard let block = try source!.readBlock(frames: blockFrames) else {
                    finish()
                    return nil
                }
                return block
            } catch {
                finish()
                throw error
            }
        }

        private func open() throws {
            let recipe = ChainRecipe(range: options.range, sampleFormat: options.sampleFormat, sampleRate: options.sampleRate,
                                     channels: options.channels, effects: options.effects, reversed: true,
                                     blockFrames: frames ?? options.blockFrames)
            let chain = try AudioChain(url: url, recipe: recipe, cancellation: flag)
            source = try chain.reader(scheduler: Scheduler(threads: options.threads, cancellation: flag))
            blockFrames = Swift.max(1, frames ?? options.blockFrames ?? chain.file.blockFrames ?? 4096)
        }

        /// Releases the reversal (and with it its temporary file) right away.
        private func finish() {
            finished = true
            source = nil
        }
    }
}
