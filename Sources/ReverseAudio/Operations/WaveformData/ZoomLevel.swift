/// One zoom level being measured: the smallest and largest 16-bit sample of each output channel
/// over the pixel in progress, as audiowaveform measures them.
///
/// A pixel holds `samplesPerPixel` frames; the last pixel holds what is left (it is written,
/// not dropped). A level whose pixel is a whole number of a finer level's pixels is built from
/// that level's pixels (their extremes are the extremes of the same frames), so every level
/// comes from one decoding pass and the samples are looked at once.
final class ZoomLevel {
    let samplesPerPixel: Int
    /// Output channels: 1 when the input's channels are mixed, else the input's count.
    let channels: Int
    /// Samples (for a level measured from the audio) or finer pixels that make one pixel.
    private let unitsPerPixel: Int
    /// The pixel in progress, per channel. Raw memory owned by this level, so handing a
    /// finished pixel to the files and coarser levels costs no reference counting.
    private let lows: UnsafeMutablePointer<Int16>
    private let highs: UnsafeMutablePointer<Int16>
    private var filled = 0
    /// The files this level is written to.
    private(set) var outputs: [WaveformDataFile] = []
    /// Coarser levels built from this one's pixels.
    private var coarser: [ZoomLevel] = []
    /// Pixels completed so far.
    private(set) var pixels: Int64 = 0

    /// A level measured from the audio (`finer` nil) or built from `finer`'s pixels.
    init(samplesPerPixel: Int, channels: Int, finer: ZoomLevel?) {
        self.samplesPerPixel = samplesPerPixel
        self.channels = channels
        unitsPerPixel = finer.map { samplesPerPixel / $0.samplesPerPixel } ?? samplesPerPixel
        lows = .allocate(capacity: channels)
        lows.initialize(repeating: .max, count: channels)
        highs = .allocate(capacity: channels)
        highs.initialize(repeating: .min, count: channels)
        finer?.coarser.append(self)
    }

    deinit {
        lows.deallocate()
        highs.deallocate()
    }

    func add(_ output: WaveformDataFile) { outputs.append(output) }

    /// Measures `frames` interleaved frames of `inputChannels` channels: mixed to one (the sum
    /// divided by the channel count, truncated toward zero, as audiowaveform mixes) when this
    /// level has one channel, else each channel on its own. The frames are taken a pixel's
    /// worth at a time, so each stretch is a plain min/max loop the compiler vectorises.
    func measure(_ samples: UnsafePointer<Int16>, frames: Int, inputChannels: Int) throws {
        var frame = 0
        while frame < frames {
            let count = min(frames - frame, unitsPerPixel - filled)
            let first = samples + frame * inputChannels
            if channels == 1 {
                let (low, high) = Self.mixedExtremes(first, frames: count, channels: inputChannels)
                lows[0] = min(lows[0], low)
                highs[0] = max(highs[0], high)
            } else {
                for channel in 0..<channels {
                    let (low, high) = Self.extremes(first + channel, count: count, stride: inputChannels)
                    lows[channel] = min(lows[channel], low)
                    highs[channel] = max(highs[channel], high)
                }
            }
            filled += count
            frame += count
            if filled == unitsPerPixel { try complete() }
        }
    }

    /// The smallest and largest of `count` samples `stride` apart.
    private static func extremes(_ samples: UnsafePointer<Int16>, count: Int, stride: Int) -> (Int16, Int16) {
        var low = Int16.max, high = Int16.min
        if stride == 1 {
            for index in 0..<count {
                low = min(low, samples[index])
                high = max(high, samples[index])
            }
        } else {
            for index in 0..<count {
                low = min(low, samples[index * stride])
                high = max(high, samples[index * stride])
            }
        }
        return (low, high)
    }

    /// The smallest and largest of `frames` frames mixed to one.
    private static func mixedExtremes(_ samples: UnsafePointer<Int16>, frames: Int, channels: Int) -> (Int16, Int16) {
        switch channels {
        case 1:
            return extremes(samples, count: frames, stride: 1)
        case 2:
            var low = Int16.max, high = Int16.min
            for frame in 0..<frames {
                let sample = Int16(truncatingIfNeeded: (Int32(samples[2 * frame]) + Int32(samples[2 * frame + 1])) / 2)
                low = min(low, sample)
                high = max(high, sample)
            }
            return (low, high)
        default:
            var low = Int16.max, high = Int16.min
            let divisor = Int32(channels)
            for frame in 0..<frames {
                var sum: Int32 = 0
                for channel in 0..<channels { sum += Int32(samples[frame * channels + channel]) }
                let sample = Int16(truncatingIfNeeded: sum / divisor)
                low = min(low, sample)
                high = max(high, sample)
            }
            return (low, high)
        }
    }

    /// Takes one pixel of the finer level.
    private func take(lows finerLows: UnsafePointer<Int16>, highs finerHighs: UnsafePointer<Int16>) throws {
        for channel in 0..<channels {
            if finerLows[channel] < lows[channel] { lows[channel] = finerLows[channel] }
            if finerHighs[channel] > highs[channel] { highs[channel] = finerHighs[channel] }
        }
        filled += 1
        if filled == unitsPerPixel { try complete() }
    }

    /// Writes the pixel in progress, if it has any frame, then does the same for the coarser
    /// levels (which may hold a partial pixel only once this one's last pixel reached them).
    func finish() throws {
        if filled > 0 { try complete() }
        for level in coarser { try level.finish() }
    }

    private func complete() throws {
        for output in outputs { try output.append(lows: lows, highs: highs) }
        for level in coarser { try level.take(lows: lows, highs: highs) }
        pixels += 1
        filled = 0
        for channel in 0..<channels {
            lows[channel] = .max
            highs[channel] = .min
        }
    }
}
