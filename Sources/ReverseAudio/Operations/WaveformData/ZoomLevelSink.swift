import ReverseAudioCore

/// A ``PCMSink`` of 16-bit frames that measures every zoom level in one pass: each level that
/// no finer level divides is measured from the frames, the others from a finer level's pixels.
/// It holds one pixel in progress per level and channel, never the audio.
final class ZoomLevelSink: PCMSink {
    let format: PCMFormat
    /// The levels, finest first.
    let levels: [ZoomLevel]
    private let measured: [ZoomLevel]

    /// Levels for `samplesPerPixel` (distinct values) over frames of `format` (16-bit).
    /// - Parameter splitChannels: keep the channels apart instead of mixing them to one.
    init(format: PCMFormat, samplesPerPixel: [Int], splitChannels: Bool) {
        self.format = format
        let channels = splitChannels ? format.channelCount : 1
        var levels: [ZoomLevel] = []
        var measured: [ZoomLevel] = []
        for size in Set(samplesPerPixel).sorted() {
            // The coarsest finer level that divides this one: the fewest pixels to combine.
            let finer = levels.last { size % $0.samplesPerPixel == 0 }
            let level = ZoomLevel(samplesPerPixel: size, channels: channels, finer: finer)
            levels.append(level)
            if finer == nil { measured.append(level) }
        }
        self.levels = levels
        self.measured = measured
    }

    /// The level of `samplesPerPixel`.
    func level(_ samplesPerPixel: Int) -> ZoomLevel? { levels.first { $0.samplesPerPixel == samplesPerPixel } }

    func write(_ chunk: PCMChunk) throws {
        let samples = chunk.bytes.bindMemory(to: Int16.self)
        for level in measured {
            try level.measure(samples.baseAddress!, frames: chunk.frameCount, inputChannels: format.channelCount)
        }
    }

    /// Writes each level's last, partial pixel.
    func finish() throws {
        for level in measured { try level.finish() }
    }

    func cancel() {}
}
