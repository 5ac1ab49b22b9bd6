import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The pictures of one group of pictures, given in presentation order and taken back in
/// reverse, in bounded memory.
///
/// Pictures are held as they are (a reference to the decoder's buffers, or the converted
/// copy) until they would take more than `memoryLimit` bytes; the rest of the group goes to a
/// temporary file as raw pictures, rows packed tightly, one fixed-size record per picture, and
/// is read back from its end. The file has no name from the moment it exists (it is gone
/// however the run ends) and is reused from one group to the next, so the disk holds at most
/// one group's overflow per buffer (two buffers: see ``GroupPipeline``).
final class GroupBuffer {
    let memoryLimit: Int
    private let folder: URL
    private var held: [(frame: Frame, timestamp: Int64)] = []
    private var heldBytes = 0
    private var spilled: [Int64] = []
    private var spillFile: TemporaryPCMFile?
    private var record: UnsafeMutableRawBufferPointer?
    private var shape: (format: PixelFormat, width: Int, height: Int)?

    /// The most bytes of pictures held at once, and the most written to the temporary file.
    private(set) var peakHeldBytes = 0
    private(set) var peakSpillBytes: Int64 = 0
    /// Pictures that went through the temporary file, over all groups.
    private(set) var spilledPictures = 0

    init(memoryLimit: Int, folder: URL) {
        self.memoryLimit = memoryLimit
        self.folder = folder
    }

    deinit { record?.deallocate() }

    /// Keeps `frame` (taken over: the caller's frame is left empty) shown at `timestamp`.
    func append(_ frame: Frame, timestamp: Int64) throws {
        let bytes = frame.heldBytes
        // Once a group has spilled, the rest of it spills too: the order on disk stays simple.
        if spilled.isEmpty, heldBytes + bytes <= memoryLimit {
            let kept = try Frame()
            kept.take(frame)
            held.append((kept, timestamp))
            heldBytes += bytes
            peakHeldBytes = max(peakHeldBytes, heldBytes)
            return
        }
        let buffer = try recordBuffer(for: frame)
        try frame.copyPicture(to: buffer)
        let file = try spillFile ?? TemporaryPCMFile(in: folder, bytesPerFrame: buffer.count)
        spillFile = file
        try file.write(UnsafeRawBufferPointer(buffer), frames: 1, at: Int64(spilled.count))
        spilled.append(timestamp)
        spilledPictures += 1
        peakSpillBytes = max(peakSpillBytes, Int64(spilled.count) * Int64(buffer.count))
    }

    /// Takes the latest picture left: into `reusable` from the temporary file, or the held frame
    /// itself; nil when the group is done.
    func removeLast(reusing reusable: Frame) throws -> (frame: Frame, timestamp: Int64)? {
        if let timestamp = spilled.last, let file = spillFile, let record, let shape {
            try file.read(into: record, at: Int64(spilled.count - 1))
            try reusable.preparePicture(format: shape.format, width: shape.width, height: shape.height, like: model)
            try reusable.fillPicture(from: UnsafeRawBufferPointer(record))
            spilled.removeLast()
            return (reusable, timestamp)
        }
        guard let last = held.popLast() else { return nil }
        heldBytes -= last.frame.heldBytes
        return last
    }

    /// A frame whose properties (colour, aspect ratio) spilled pictures get back.
    private var model: Frame?

    private func recordBuffer(for frame: Frame) throws -> UnsafeMutableRawBufferPointer {
        if let record, let shape, shape.format == frame.pixelFormat, shape.width == frame.width, shape.height == frame.height {
            return record
        }
        record?.deallocate()
        let size = frame.pictureByteCount
        let made = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
        record = made
        shape = (frame.pixelFormat, frame.width, frame.height)
        let properties = try Frame()
        try properties.preparePicture(format: frame.pixelFormat, width: 2, height: 2, like: frame)
        model = properties
        // A new shape needs a new file: records are of one size.
        spillFile = nil
        return made
    }
}
