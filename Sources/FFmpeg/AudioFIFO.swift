import CFFmpeg

/// Owns one `AVAudioFifo`: samples queued in an encoder's format until a whole frame is there.
final class AudioFIFO {
    private let fifo: OpaquePointer
    let format: AVSampleFormat
    let channelCount: Int

    init(format: AVSampleFormat, channelCount: Int) throws(FFmpegError) {
        guard let allocated = av_audio_fifo_alloc(format, Int32(channelCount), 4096) else {
            throw .outOfMemory("allocating a sample queue")
        }
        self.format = format
        self.channelCount = channelCount
        fifo = allocated
    }

    deinit { av_audio_fifo_free(fifo) }

    /// Frames queued.
    var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Queues `frames` frames from `planes` (one pointer for packed data, one per channel for planar).
    func write(_ planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, frames: Int) throws(FFmpegError) {
        guard frames > 0 else { return }
        let written = planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
            av_audio_fifo_write(fifo, $0, Int32(frames))
        }
        try FFmpegError.check(written, "queueing samples for the encoder")
    }

    /// Moves up to `frames` frames into `frame`, whose buffers must hold them.
    func read(into frame: Frame, frames: Int) throws(FFmpegError) -> Int {
        let read = frame.pointer.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 1) {
            av_audio_fifo_read(fifo, $0, Int32(frames))
        }
        try FFmpegError.check(read, "taking samples for the encoder")
        return Int(read)
    }
}
