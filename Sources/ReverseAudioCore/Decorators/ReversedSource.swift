import Foundation

/// Another source's frames in reverse order, read in order: the seed's reverser, which hands
/// out the reversed audio block by block in flat memory. Frames are reversed as units: channels
/// never swap.
///
/// Lossy decoders carry state from frame to frame, so the input is read forwards, continuously
/// (or in exact segments on several threads: the ``Scheduler`` decides), and every frame is
/// placed at its mirrored position in an unnamed temporary file (as big as the raw audio, gone
/// however the process ends), from which the reversal is read. An input whose length nothing
/// tells (a pipe) is stored forwards and read back from its end instead.
///
/// A conversion into a file that takes frames at any position needs none of this: the
/// scheduler places the frames straight into it. This is what reads a reversal in order: a
/// reversed piece of a composition, a video's reversed audio, the blocks of the seed's API.
///
/// Only the scheduler makes one (``Scheduler/reversal(of:storingIn:progress:)``), handing it
/// how to place its input (``Placing``): the reversal knows nothing of threads.
package final class ReversedSource: PCMSource {
    /// How the input is placed into the store: decided by the scheduler that made the reversal.
    struct Placing {
        /// Where the temporary file goes.
        let temporaryFolder: URL
        /// Places the input's frames at their mirrored positions in the file.
        let mirror: (Scheduler.Input, TemporaryPCMFile, ProgressHandler?) throws -> Scheduler.Report
        /// Why one reader stored an input of unknown length, when more were allowed.
        let storedForwardsReason: OneReaderReason?
        /// True once the work is cancelled.
        let isCancelled: () -> Bool
    }

    private let input: Scheduler.Input
    private let placing: Placing
    private let progress: ProgressHandler?
    private var store: TemporaryPCMFile?
    private var prepared = false
    private var storedFrames: Int64 = 0
    /// True when the store holds the input forwards (an input of unknown length).
    private var storedForwards = false
    private var buffer: UnsafeMutableRawBufferPointer
    private var scratch: UnsafeMutableRawBufferPointer
    /// The index of the next frame read.
    package private(set) var position: Int64 = 0
    /// What placing the reversal did (its threads, passes, blocks, how the length was known),
    /// once the first read or seek placed it.
    package private(set) var placement = Scheduler.Report()

    /// The reversal of `input`; nothing is read before the first ``read(maximumFrames:)`` or
    /// ``seek(to:endingAt:)``.
    /// - Parameters:
    ///   - input: the chain to reverse and how it can be split.
    ///   - placing: how the input is placed, as the scheduler decided.
    ///   - file: the temporary file to place the frames in (default: a new one in the
    ///     placing's temporary folder).
    ///   - progress: the placing of the input, as fractions of its length.
    init(_ input: Scheduler.Input, placing: Placing, storingIn file: TemporaryPCMFile?, progress: ProgressHandler?) {
        self.input = input
        self.placing = placing
        self.progress = progress
        store = file
        buffer = .allocate(byteCount: 0, alignment: 16)
        scratch = .allocate(byteCount: 0, alignment: 16)
    }

    deinit {
        buffer.deallocate()
        scratch.deallocate()
    }

    /// The frames' sample format, rate and channels.
    package var format: PCMFormat { input.source.format }

    /// The input's length, and once it has been read, the length reading gave.
    package var length: PCMLength {
        guard prepared else { return input.source.length }
        return PCMLength(frames: storedFrames, source: placement.lengthSource ?? .decode)
    }

    /// Bytes the temporary file holds (the reversed audio), while it exists.
    package var temporaryBytes: Int64 { store?.size ?? 0 }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        if !prepared { try prepare() }
        let count = Int(min(Int64(maximumFrames), storedFrames - position))
        guard count > 0, let store else { return nil }
        let frameBytes = format.bytesPerFrame
        reserve(&buffer, bytes: count * frameBytes)
        let out = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(count * frameBytes)])
        if storedForwards {
            // Output frames [p, p + n) are stored frames [N − p − n, N − p), reversed.
            reserve(&scratch, bytes: count * frameBytes)
            let stored = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(count * frameBytes)])
            try store.read(into: stored, at: storedFrames - position - Int64(count))
            FrameReversal.copyReversed(stored.baseAddress!, to: out.baseAddress!, frames: count, frameBytes: frameBytes)
        } else {
            try store.read(into: out, at: position)
        }
        defer { position += Int64(count) }
        return PCMChunk(bytes: UnsafeRawBufferPointer(out), frameCount: count, position: position)
    }

    /// Moves anywhere in the reversal (the input is placed first if it was not yet).
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        if !prepared { try prepare() }
        position = min(max(frame, 0), storedFrames)
        return SeekedTo(required: frame, reached: position)
    }

    /// Deletes the temporary file now instead of when the source is released.
    package func close() {
        store = nil
        storedFrames = 0
    }

    /// Reads the input into the temporary file: placed mirrored when its length is known,
    /// stored forwards otherwise.
    private func prepare() throws {
        let file = try store ?? TemporaryPCMFile(in: placing.temporaryFolder, bytesPerFrame: format.bytesPerFrame)
        store = file
        if input.source.length.frames != nil {
            placement = try placing.mirror(input, file, progress)
            storedFrames = placement.frames
        } else {
            storedFrames = try storeForwards(into: file)
            storedForwards = true
            placement.blockFrames = input.blockFrames
            placement.lengthSource = .decode
            placement.singleThreadReason = placing.storedForwardsReason
        }
        placement.temporaryBytes = file.size
        prepared = true
    }

    /// Stores the input forwards (its length unknown): read back from the end.
    private func storeForwards(into file: TemporaryPCMFile) throws -> Int64 {
        var frames: Int64 = 0
        while let chunk = try input.source.read(maximumFrames: transferChunkFrames) {
            if placing.isCancelled() { throw CancellationError() }
            try file.write(chunk.bytes, frames: chunk.frameCount, at: frames)
            frames += Int64(chunk.frameCount)
        }
        return frames
    }

    private func reserve(_ storage: inout UnsafeMutableRawBufferPointer, bytes: Int) {
        guard storage.count < bytes else { return }
        storage.deallocate()
        storage = .allocate(byteCount: max(bytes, storage.count * 2), alignment: 16)
    }
}

extension PCMSource {
    /// This source's frames in reverse order, read in order. The first read or seek reads the
    /// whole source forwards, once, into an unnamed temporary file in `temporaryFolder` (as big
    /// as the raw audio, gone however the process ends), so memory stays flat.
    ///
    /// ```swift
    /// let backwards = try AudioReader(url: phrase).reversed()
    /// ```
    /// - Parameters:
    ///   - name: what the frames come from, for messages.
    ///   - temporaryFolder: where the unnamed temporary file goes.
    public func reversed(name: String = "source", temporaryFolder: URL = FileManager.default.temporaryDirectory) -> any PCMSource {
        Scheduler(threads: 1, temporaryFolder: temporaryFolder)
            .reversal(of: Scheduler.Input(source: self, splitting: .single(reason: .callersSource), name: name))
    }
}
