import Foundation

/// The decoded blocks of a file as an `AsyncSequence`.
///
/// Decoding runs on a private serial queue, never on Swift's cooperative thread pool.
/// Cancelling the consuming task stops decoding at the next packet and ends the loop with
/// `CancellationError`.
///
/// ```swift
/// for try await block in DecodedAudio(url: url, channels: .mix) {
///     meter.update(block.samples)
/// }
/// ```
public struct DecodedAudio: AsyncSequence, Sendable {
    /// Each element is one decoded block.
    public typealias Element = SampleBuffer

    /// The file decoded.
    public let url: URL
    /// The channels delivered.
    public let channels: ChannelSelection

    /// The blocks of `url`, 16-bit, with `channels`.
    public init(url: URL, channels: ChannelSelection = .all) {
        self.url = url
        self.channels = channels
    }

    /// Starts decoding when the first block is asked for.
    public func makeAsyncIterator() -> SampleBufferIterator {
        SampleBufferIterator(session: BlockSession(open: { [url, channels] flag in
            let decoder = try PCMDecoder(url: url, channels: channels, isCancelled: flag.check)
            return { try decoder.read() }
        }))
    }
}

/// Iterates the blocks of ``DecodedAudio`` or ``ReversedAudio``.
public struct SampleBufferIterator: AsyncIteratorProtocol {
    let session: BlockSession

    /// The next block; nil after the last.
    public mutating func next() async throws -> SampleBuffer? {
        try await session.next()
    }
}

/// Pulls blocks from a non-thread-safe producer on a private serial queue.
final class BlockSession: @unchecked Sendable {
    // @unchecked: `producer` and `finished` are only touched on `queue`.
    typealias Producer = () throws -> SampleBuffer?

    private let queue = DispatchQueue(label: "ReverseAudio.BlockSession")
    private let flag = CancellationFlag()
    private let open: @Sendable (CancellationFlag) throws -> Producer
    private var producer: Producer?
    private var finished = false

    init(open: @escaping @Sendable (CancellationFlag) throws -> Producer) {
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
            if producer == nil { producer = try open(flag) }
            guard let block = try producer!() else {
                finish()
                return nil
            }
            return block
        } catch {
            finish()
            throw error
        }
    }

    /// Releases the producer (and with it any FFmpeg objects or temporary files) right away.
    private func finish() {
        finished = true
        producer = nil
    }
}
