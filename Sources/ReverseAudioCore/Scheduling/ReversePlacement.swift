/// Turns one continuous forward decode into the reversed stream, in flat memory.
///
/// Source frame `s` of a stream of `totalFrames` frames belongs at output frame
/// `totalFrames - 1 - s`. Frames are reversed into a batch buffer that covers a run of whole
/// output blocks; when the decode has filled a batch down to its first frame, the batch goes
/// to the sink as blocks of `blockFrames` frames, in output order (the output's last block,
/// the one holding the source's first frames, may be short). The sink therefore receives
/// exactly the reversed block sequence, batch by batch from the end of the output backwards.
///
/// If the decode runs past `totalFrames`, the extra frames are only counted; if it ends short,
/// the last batch is never flushed. Either way ``isComplete`` is false and the caller redoes
/// the work with the true length, ``sourceFrames``.
final class ReversePlacement {
    let totalFrames: Int64
    let blockFrames: Int
    /// Bytes per interleaved frame.
    let frameBytes: Int
    private let sink: any PositionedPCMSink
    private let batchFrames: Int64
    private let batch: UnsafeMutableRawPointer
    private var batchStart: Int64 = 0
    private var batchEnd: Int64 = 0
    private var batchIsOpen = false

    /// Frames of the forward decode consumed so far.
    private(set) var sourceFrames: Int64 = 0

    /// The most memory one block may take: a block is held whole before it is written.
    static let maximumBlockBytes = 256 << 20

    /// - Parameters:
    ///   - blockFrames: frames per block; more than `totalFrames` means one block of the whole.
    ///   - batchBytes: roughly how much is buffered between writes.
    /// - Throws: ``SettingError/outOfRange(_:value:allowed:)`` when a block would
    ///   not fit in ``maximumBlockBytes``.
    init(totalFrames: Int64, blockFrames requested: Int, frameBytes: Int, sink: any PositionedPCMSink,
         batchBytes: Int = 1 << 20) throws {
        let blockFrames = try ReversePlacement.checkedBlockFrames(requested, totalFrames: totalFrames, frameBytes: frameBytes)
        self.totalFrames = totalFrames
        self.blockFrames = blockFrames
        self.frameBytes = frameBytes
        self.sink = sink
        let blocksPerBatch = max(1, batchBytes / (blockFrames * frameBytes))
        batchFrames = Int64(blocksPerBatch * blockFrames)
        batch = .allocate(byteCount: Int(batchFrames) * frameBytes, alignment: 16)
    }

    deinit { batch.deallocate() }

    /// `requested` frames per block, at most the stream's length, or the error for a block
    /// that cannot be (none, or more than ``maximumBlockBytes``).
    static func checkedBlockFrames(_ requested: Int, totalFrames: Int64, frameBytes: Int) throws -> Int {
        let most = maximumBlockBytes / max(frameBytes, 1)
        guard requested > 0 else {
            throw ReverseAudioError.setting(.outOfRange(.blockFrames, value: "\(requested)", allowed: "1 to \(most) frames"))
        }
        let blockFrames = Int(min(Int64(requested), max(totalFrames, 1)))
        let (blockBytes, overflow) = blockFrames.multipliedReportingOverflow(by: frameBytes)
        guard !overflow, blockBytes <= maximumBlockBytes else {
            throw ReverseAudioError.setting(.outOfRange(.blockFrames, value: "\(requested)",
                                                      allowed: "1 to \(most) frames (\(maximumBlockBytes >> 20) MiB)"))
        }
        return blockFrames
    }

    /// True when the decode produced exactly `totalFrames` frames and all were written.
    var isComplete: Bool { sourceFrames == totalFrames && !batchIsOpen }

    /// Takes the next `frames` frames of the forward decode.
    func consume(_ bytes: UnsafeRawBufferPointer, frames: Int) throws {
        guard var source = bytes.baseAddress else { return }
        var remaining = frames
        while remaining > 0 {
            guard sourceFrames < totalFrames else {
                sourceFrames += Int64(remaining)  // longer than predicted: count only
                return
            }
            let top = totalFrames - 1 - sourceFrames  // output index of the next source frame
            if !batchIsOpen { openBatch(containing: top) }
            let count = Int(min(Int64(remaining), top - batchStart + 1))
            let lowest = top - Int64(count) + 1
            FrameReversal.copyReversed(source, to: batch + Int(lowest - batchStart) * frameBytes,
                                       frames: count, frameBytes: frameBytes)
            source += count * frameBytes
            remaining -= count
            sourceFrames += Int64(count)
            if lowest == batchStart { try flushBatch() }
        }
    }

    private func openBatch(containing frame: Int64) {
        batchStart = (frame / batchFrames) * batchFrames
        batchEnd = min(batchStart + batchFrames, totalFrames)
        batchIsOpen = true
    }

    private func flushBatch() throws {
        var blockStart = batchStart
        while blockStart < batchEnd {
            let frames = Int(min(Int64(blockFrames), batchEnd - blockStart))
            let offset = Int(blockStart - batchStart) * frameBytes
            try sink.write(UnsafeRawBufferPointer(start: batch + offset, count: frames * frameBytes),
                           frames: frames, at: blockStart)
            blockStart += Int64(frames)
        }
        batchIsOpen = false
    }
}
