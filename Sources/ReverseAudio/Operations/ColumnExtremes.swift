import ReverseAudioCore

/// A ``PCMSink`` that measures a waveform: the smallest and largest sample of each of `columns`
/// columns, per channel, for float samples (full scale ±1). Column `c` covers frames
/// `c × N / columns ..< (c + 1) × N / columns` of the `N` frames measured.
final class ColumnExtremes: PCMSink {
    let format: PCMFormat
    private let columns: Int
    private let totalFrames: Int64
    private var frame: Int64 = 0
    /// Per channel, per column: the extremes, nil for a column no frame reached.
    private(set) var extremes: [[(min: Float, max: Float)?]]

    init(format: PCMFormat, columns: Int, totalFrames: Int64) {
        self.format = format
        self.columns = columns
        self.totalFrames = totalFrames
        extremes = [[(min: Float, max: Float)?]](repeating: [(min: Float, max: Float)?](repeating: nil, count: columns),
                                                 count: format.channelCount)
    }

    func write(_ chunk: PCMChunk) throws {
        let channels = format.channelCount
        let samples = chunk.bytes.bindMemory(to: Float.self)
        for index in 0..<chunk.frameCount {
            let column = Int(min(Int64(columns - 1), (frame + Int64(index)) * Int64(columns) / totalFrames))
            for channel in 0..<channels {
                let value = samples[index * channels + channel]
                if let current = extremes[channel][column] {
                    extremes[channel][column] = (Swift.min(current.min, value), Swift.max(current.max, value))
                } else {
                    extremes[channel][column] = (value, value)
                }
            }
        }
        frame += Int64(chunk.frameCount)
    }

    func finish() throws {}
    func cancel() {}
}
