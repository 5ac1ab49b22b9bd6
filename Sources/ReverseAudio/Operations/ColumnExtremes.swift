import ReverseAudioCore

/// A ``PCMSink`` that measures a waveform: the smallest and largest sample of each of `columns`
/// columns, per channel, for float samples (full scale ±1). Column `c` covers frames
/// `c × N / columns ..< (c + 1) × N / columns` of the `N` frames measured.
///
/// A chunk is measured a run of frames of one column at a time, channel by channel, into flat
/// arrays: one comparison pair a sample and one store a run (a column per sample and a store
/// into nested arrays of optional pairs made a 20-minute picture cost three times its decode).
final class ColumnExtremes: PCMSink {
    let format: PCMFormat
    private let columns: Int
    private let totalFrames: Int64
    private var frame: Int64 = 0
    /// Per channel, then per column (`channel × columns + column`).
    private var lows: [Float]
    private var highs: [Float]
    private var reached: [Bool]

    init(format: PCMFormat, columns: Int, totalFrames: Int64) {
        self.format = format
        self.columns = columns
        self.totalFrames = max(totalFrames, 1)
        let slots = columns * format.channelCount
        lows = [Float](repeating: 0, count: slots)
        highs = [Float](repeating: 0, count: slots)
        reached = [Bool](repeating: false, count: slots)
    }

    /// Per channel, per column: the extremes, nil for a column no frame reached.
    var extremes: [[(min: Float, max: Float)?]] {
        (0..<format.channelCount).map { channel in
            (0..<columns).map { column in
                let slot = channel * columns + column
                return reached[slot] ? (lows[slot], highs[slot]) : nil
            }
        }
    }

    func write(_ chunk: PCMChunk) throws {
        let channels = format.channelCount
        let count = chunk.frameCount
        let samples = chunk.bytes.bindMemory(to: Float.self)
        let columns = Int64(self.columns)
        var index = 0
        lows.withUnsafeMutableBufferPointer { lows in
            highs.withUnsafeMutableBufferPointer { highs in
                reached.withUnsafeMutableBufferPointer { reached in
                    while index < count {
                        let position = frame + Int64(index)
                        let column = min(columns - 1, position * columns / totalFrames)
                        // The first frame of the next column (past the last column: none).
                        let next = column == columns - 1 ? Int64.max : ((column + 1) * totalFrames + columns - 1) / columns
                        let end = Int(min(Int64(count), next - frame))
                        for channel in 0..<channels {
                            var low = samples[index * channels + channel]
                            var high = low
                            var at = index + 1
                            while at < end {
                                let value = samples[at * channels + channel]
                                low = Swift.min(low, value)
                                high = Swift.max(high, value)
                                at += 1
                            }
                            let slot = channel * self.columns + Int(column)
                            if reached[slot] {
                                lows[slot] = Swift.min(lows[slot], low)
                                highs[slot] = Swift.max(highs[slot], high)
                            } else {
                                (lows[slot], highs[slot], reached[slot]) = (low, high, true)
                            }
                        }
                        index = end
                    }
                }
            }
        }
        frame += Int64(count)
    }

    func finish() throws {}
    func cancel() {}
}
