import FFmpeg
import Foundation

/// Pictures of audio: the smallest and largest sample of every pixel column, for each channel,
/// above a time axis, written as PNG through libavcodec's PNG encoder.
///
/// ```swift
/// try Waveform.draw(URL(fileURLWithPath: "phrase.wav"), to: URL(fileURLWithPath: "phrase.png"),
///                   compare: URL(fileURLWithPath: "phrase-REVERSED.wav"))
/// ```
///
/// Column `c` of `width` covers frames `c × N / width ..< (c + 1) × N / width` of the `N` frames
/// drawn, so the picture of a reversal is the original's mirrored left to right.
public enum Waveform {
    /// Colours, as RGB.
    static let background: [UInt8] = [255, 255, 255]
    static let wave: [UInt8] = [32, 64, 160]
    static let midline: [UInt8] = [210, 210, 210]
    static let axis: [UInt8] = [0, 0, 0]
    /// Rows at the bottom of each panel for the time axis.
    static let axisHeight = 14

    /// Draws `input` (and `compare` in a second panel under it) into a PNG at `output`.
    /// - Parameters:
    ///   - input: the audio file drawn in the upper panel.
    ///   - output: the PNG file to write (written under a temporary name and published whole).
    ///   - width: pixels across (one column per width-th of the audio).
    ///   - height: pixels down, for the whole picture.
    ///   - range: the part of the audio to draw; nil for all of it (applies to both files).
    ///   - compare: a second file drawn under the first, such as its reversal.
    ///   - overwrite: replace an existing file at `output`.
    public static func draw(_ input: URL, to output: URL, width: Int = 1200, height: Int = 300,
                            range: TimeRange? = nil, compare: URL? = nil, overwrite: Bool = false) throws {
        let inputs = [input] + (compare.map { [$0] } ?? [])
        guard (16...16384).contains(width), (axisHeight * inputs.count + 8 * inputs.count...16384).contains(height) else {
            throw ReverseAudioError.invalidOption("a waveform must be 16 to 16384 pixels wide and \(axisHeight + 8) to 16384 high per file, not \(width)×\(height)")
        }
        let destination = try OutputFile(url: output, overwrite: overwrite, inputs: inputs)
        var canvas = Canvas(width: width, height: height)
        let panelHeight = height / inputs.count
        for (index, file) in inputs.enumerated() {
            let columns = try columnExtremes(of: file, columns: width, range: range)
            canvas.drawPanel(columns.extremes, top: index * panelHeight, height: panelHeight, seconds: columns.seconds)
        }
        do {
            try PictureWriter.writePNG(canvas.pixels, width: width, height: height, to: destination.temporaryURL.path)
        } catch {
            destination.discard()
            throw ReverseAudioError.writeFailed(path: output.displayPath, reason: error.message)
        }
        try destination.commit()
    }

    /// The smallest and largest sample of each column, per channel, and the seconds drawn.
    static func columnExtremes(of url: URL, columns: Int, range: TimeRange?) throws
        -> (extremes: [[(min: Float, max: Float)?]], seconds: Double) {
        let info = try AudioInfo.read(from: url)
        let decoder = try PCMDecoder(url: url, sampleFormat: .f32)
        let rate = info.sampleRate
        var span: Range<Int64> = 0..<(info.frames ?? 0)
        if let range {
            let asked = try range.frames(atRate: rate, path: url.displayPath)
            try decoder.limit(to: asked, requiringWholeRange: true)
            span = asked.lowerBound..<(asked.lowerBound + asked.count(within: info.frames ?? asked.upperBound))
        }
        let total = max(span.count, 1)
        let channels = decoder.format.channelCount
        var extremes = [[(min: Float, max: Float)?]](repeating: [(min: Float, max: Float)?](repeating: nil, count: columns),
                                                     count: channels)
        var frame: Int64 = 0
        while try decoder.readChunk({ bytes, frames in
            let samples = bytes.bindMemory(to: Float.self)
            for index in 0..<frames {
                let column = Int(min(Int64(columns - 1), (frame + Int64(index)) * Int64(columns) / Int64(total)))
                for channel in 0..<channels {
                    let value = samples[index * channels + channel]
                    if let current = extremes[channel][column] {
                        extremes[channel][column] = (Swift.min(current.min, value), Swift.max(current.max, value))
                    } else {
                        extremes[channel][column] = (value, value)
                    }
                }
            }
            frame += Int64(frames)
        }) {}
        return (extremes, Double(total) / Double(rate))
    }

    /// An RGB picture being drawn.
    struct Canvas {
        let width: Int
        let height: Int
        private(set) var pixels: [UInt8]

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            pixels = [UInt8](repeating: 0, count: width * height * 3)
            for index in 0..<(width * height) { pixels.replaceSubrange(index * 3..<index * 3 + 3, with: Waveform.background) }
        }

        mutating func set(_ x: Int, _ y: Int, _ color: [UInt8]) {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            pixels.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: color)
        }

        /// One file: a band per channel, then the time axis.
        mutating func drawPanel(_ extremes: [[(min: Float, max: Float)?]], top: Int, height: Int, seconds: Double) {
            let bandsHeight = height - Waveform.axisHeight
            let bandHeight = max(1, bandsHeight / max(extremes.count, 1))
            for (channel, columns) in extremes.enumerated() {
                let bandTop = top + channel * bandHeight
                let middle = bandTop + (bandHeight - 1) / 2
                for x in 0..<width { set(x, middle, Waveform.midline) }
                for (x, extreme) in columns.enumerated() {
                    guard let extreme else { continue }
                    let upper = row(extreme.max, top: bandTop, height: bandHeight)
                    let lower = row(extreme.min, top: bandTop, height: bandHeight)
                    for y in upper...lower { set(x, y, Waveform.wave) }
                }
            }
            drawAxis(top: top + bandsHeight, seconds: seconds)
        }

        /// The row of sample value `value` (full scale ±1) in a band.
        func row(_ value: Float, top: Int, height: Int) -> Int {
            let clamped = Double(Swift.max(-1, Swift.min(1, value)))
            return top + Int(((1 - clamped) * Double(height - 1) / 2).rounded())
        }

        /// A line across, and a tick at every step of a round interval (longer every fifth).
        mutating func drawAxis(top: Int, seconds: Double) {
            for x in 0..<width { set(x, top, Waveform.axis) }
            let step = Waveform.tickStep(seconds: seconds, width: width)
            var index = 0
            while Double(index) * step <= seconds + 1e-9 {
                let x = Int((Double(index) * step / seconds * Double(width)).rounded())
                let length = index % 5 == 0 ? Waveform.axisHeight - 2 : (Waveform.axisHeight - 2) / 2
                for y in (top + 1)...(top + length) { set(Swift.min(x, width - 1), y, Waveform.axis) }
                index += 1
            }
        }
    }

    /// The round interval (1, 2 or 5 × a power of ten seconds) that puts ticks at least 40 pixels apart.
    static func tickStep(seconds: Double, width: Int) -> Double {
        let minimum = max(seconds, 1e-6) * 40 / Double(width)
        var power = pow(10, floor(log10(minimum)))
        while true {
            for multiple in [1.0, 2.0, 5.0] where multiple * power >= minimum { return multiple * power }
            power *= 10
        }
    }
}
