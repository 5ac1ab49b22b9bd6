import Foundation

/// A reversal of an input that can be read only once and whose length is unknown (a pipe):
/// the decode is written forwards to a temporary file, which is then read back block by block
/// from its end, each block reversed, and handed out in the reversed order.
///
/// Memory stays flat; disk holds the decoded audio once (the file has no name, so it is gone
/// however the run ends).
struct SpilledReversal {
    /// Frames per block handed out (the last may be short).
    let blockFrames: Int
    let isCancelled: @Sendable () -> Bool

    /// Decodes `decoder` to the end into a temporary file in `folder`, then calls `body` with
    /// the reversed audio, block after block.
    /// - Returns: the frames, and the temporary file's size.
    func run(_ decoder: PCMDecoder, in folder: URL, progress: ProgressHandler?,
             body: (UnsafeRawBufferPointer, Int) throws -> Void) throws -> (frames: Int64, temporaryBytes: Int64) {
        let frameBytes = decoder.format.bytesPerFrame
        var store: TemporaryPCMFile?
        var frames: Int64 = 0
        while try decoder.readChunk({ bytes, count in
            if store == nil { store = try TemporaryPCMFile(in: folder, bytesPerFrame: frameBytes) }
            try store!.write(bytes, frames: count, at: frames)
            frames += Int64(count)
        }) {}
        guard let store, frames > 0 else { return (0, 0) }
        let block = max(1, min(blockFrames, (1 << 22) / frameBytes))
        let reversed = UnsafeMutableRawPointer.allocate(byteCount: block * frameBytes, alignment: 16)
        defer { reversed.deallocate() }
        var end = frames
        while end > 0 {
            if isCancelled() { throw CancellationError() }
            let start = max(0, end - Int64(block))
            let count = Int(end - start)
            try store.read(frames: count, at: start).withUnsafeBytes { bytes in
                FrameReversal.copyReversed(bytes.baseAddress!, to: reversed, frames: count, frameBytes: frameBytes)
            }
            try body(UnsafeRawBufferPointer(start: reversed, count: count * frameBytes), count)
            end = start
            progress?(Double(frames - end) / Double(frames))
        }
        return (frames, store.size)
    }
}
