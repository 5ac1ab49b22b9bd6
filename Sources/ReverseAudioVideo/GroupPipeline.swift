import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Decodes the runs of groups of pictures on a thread of its own, one run ahead of the encoder:
/// while the pictures of one run go to x264 in reverse, the run before it in the file is being
/// decoded into the other of two buffers. Decoding and encoding overlap as they do in a forward
/// encode, where the decoder's threads and x264's run side by side; done one after the other,
/// x264's threads would wait for each group's decode and the decoder's for each group's encode.
///
/// The two buffers share the memory limit (half each), so decoded pictures in memory stay
/// within ``VideoOptions/memoryLimit`` as with one buffer; what does not fit goes to each
/// buffer's temporary file.
final class GroupPipeline: @unchecked Sendable {
    // @unchecked: the decoder, the adapter and the buffer being filled belong to the decoding
    // thread until it ends; buffers change hands only under `condition`, and the encoding side
    // reads a buffer only after the decoding side handed it over.

    /// A decoded run, ready for the encoder: its pictures, and the last one's time.
    struct Run {
        let buffer: GroupBuffer
        /// The last picture's timestamp and duration (nil when the run showed no picture).
        let last: (timestamp: Int64, duration: Int64)?
        /// The picture shape the encoder takes (known from the first picture decoded).
        let shape: PictureAdapter?
    }

    private let condition = NSCondition()
    private var ready: [Run] = []
    private var free: [GroupBuffer]
    private var ended: Result<Void, any Error>?
    private let stop: CancellationFlag

    /// Pictures decoded and kept, over all runs; read once the pipeline has ended.
    private(set) var decodedFrames = 0
    /// Decodes run (a group, or neighbouring groups joined while they fit in a buffer).
    private(set) var decodeRuns = 0
    /// The adapter made for the first picture (the encoding side reads it from a ``Run``).
    private(set) var adapter: PictureAdapter?

    /// The two buffers, for the figures of the result once the pipeline has ended.
    let buffers: [GroupBuffer]

    /// Starts decoding `groups` (in file order) from the last to the first.
    /// - Parameters:
    ///   - decoder: the decoder, made with `stop` among the conditions it stops on; the
    ///     pipeline's thread uses it alone from now on.
    ///   - adapter: the adapter of an earlier forward pass (a boomerang), or nil.
    ///   - memoryLimit: bytes of decoded pictures for both buffers together.
    ///   - stop: set by ``stopAndWait()`` to end the decoding early.
    ///   - adapt: makes the encoder's picture of a decoded one, creating the adapter the first time.
    init(decoder: GroupDecoder, groups: [KeyframeIndex.Group], adapter: PictureAdapter?, memoryLimit: Int, folder: URL,
         defaultPictureBytes: Int, stop: CancellationFlag, adapt: @escaping (Frame, inout PictureAdapter?) throws -> Frame) {
        let perBuffer = memoryLimit / 2
        buffers = [GroupBuffer(memoryLimit: perBuffer, folder: folder), GroupBuffer(memoryLimit: perBuffer, folder: folder)]
        free = buffers
        self.stop = stop
        self.adapter = adapter
        let work = HandOff((decoder, adapt))
        let thread = Thread { [self] in
            let outcome = Result {
                try decodeAll(groups, with: work.value.0, memoryLimit: perBuffer, defaultPictureBytes: defaultPictureBytes,
                              adapt: work.value.1)
            }
            condition.lock()
            ended = outcome
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// The next decoded run, latest in the file first; nil when every run was handed out.
    /// - Throws: the decoding thread's error.
    func next() throws -> Run? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && ended == nil { condition.wait() }
        if !ready.isEmpty { return ready.removeFirst() }
        if case .failure(let error)? = ended { throw error }
        return nil
    }

    /// Gives a run's buffer back (emptied) for the next decode.
    func recycle(_ buffer: GroupBuffer) {
        condition.lock()
        free.append(buffer)
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the decoding thread and waits for it to end (after an error on the encoding side,
    /// or once every run was taken).
    func stopAndWait() {
        stop.cancel()
        condition.lock()
        condition.broadcast()
        while ended == nil { condition.wait() }
        condition.unlock()
    }

    private func decodeAll(_ groups: [KeyframeIndex.Group], with decoder: GroupDecoder, memoryLimit: Int, defaultPictureBytes: Int,
                           adapt: (Frame, inout PictureAdapter?) throws -> Frame) throws {
        // The last group alone first: its pictures tell what one costs in memory; then the
        // rest, neighbours joined into one decode while they fit in a buffer.
        var pending = groups.filter { $0.frameCount > 0 }
        var runs = pending.popLast().map { [$0] } ?? []
        var pictureBytes: Int?
        var shape = adapter
        while let run = runs.first {
            runs.removeFirst()
            guard let buffer = takeFreeBuffer() else { throw CancellationError() }
            decodeRuns += 1
            var last: (timestamp: Int64, duration: Int64)?
            try decoder.decode(run) { decoded in
                let timestamp = decoded.bestEffortTimestamp ?? run.start
                let duration = decoded.duration
                let picture = try adapt(decoded, &shape)
                if pictureBytes == nil { pictureBytes = picture.heldBytes }
                try buffer.append(picture, timestamp: timestamp)
                last = (timestamp, duration)
                decodedFrames += 1
            }
            condition.lock()
            adapter = shape
            ready.append(Run(buffer: buffer, last: last, shape: shape))
            condition.broadcast()
            condition.unlock()
            if !pending.isEmpty, runs.isEmpty {
                runs = KeyframeIndex.decodingRuns(of: pending, memoryLimit: memoryLimit,
                                                  pictureBytes: pictureBytes ?? defaultPictureBytes)
                pending = []
            }
        }
    }

    /// Waits for an emptied buffer; nil once the pipeline is stopped.
    private func takeFreeBuffer() -> GroupBuffer? {
        condition.lock()
        defer { condition.unlock() }
        while free.isEmpty && !stop.isCancelled { condition.wait() }
        return stop.isCancelled ? nil : free.removeFirst()
    }
}
