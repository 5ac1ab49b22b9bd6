import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

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

    /// What a drawing showed.
    public struct Drawing: Sendable, Equatable {
        /// Frames drawn of each file, in panel order: the range's, or the whole decode's.
        public let frames: [Int64]
        /// The picture's width in pixels.
        public let width: Int
        /// The picture's height in pixels.
        public let height: Int
    }

    /// Draws `input` (and `compare` in a second panel under it) into a PNG at `output`.
    /// - Parameters:
    ///   - input: the audio file drawn in the upper panel.
    ///   - output: the PNG file to write (written under a temporary name and published whole).
    ///   - width: pixels across (one column per width-th of the audio).
    ///   - height: pixels down, for the whole picture.
    ///   - range: the part of the audio to draw; nil for all of it (applies to both files).
    ///   - compare: a second file drawn under the first, such as its reversal.
    ///   - overwrite: replace an existing file at `output`.
    ///   - cancellation: stops the work (and removes the partial picture) when set.
    /// - Returns: the frames drawn of each file.
    @discardableResult
    public static func draw(_ input: URL, to output: URL, width: Int = 1200, height: Int = 300,
                            range: TimeRange? = nil, compare: URL? = nil, overwrite: Bool = false,
                            cancellation: CancellationFlag? = nil) throws -> Drawing {
        let inputs = [input] + (compare.map { [$0] } ?? [])
        let lowest = axisHeight * inputs.count + 8 * inputs.count
        guard (16...16384).contains(width), (lowest...16384).contains(height) else {
            throw ReverseAudioError.settingOutOfRange(.waveformSize, value: "\(width)×\(height)",
                                                      allowed: "16 to 16384 pixels wide and \(lowest) to 16384 high")
        }
        let destination = try OutputFile(url: output, overwrite: overwrite, inputs: inputs)
        var canvas = Canvas(width: width, height: height)
        let panelHeight = height / inputs.count
        var frames: [Int64] = []
        for (index, file) in inputs.enumerated() {
            let columns = try columnExtremes(of: file, columns: width, range: range, cancellation: cancellation)
            canvas.drawPanel(columns.extremes, top: index * panelHeight, height: panelHeight, seconds: columns.seconds)
            frames.append(columns.frames)
        }
        do {
            try PictureFile.writePNG(canvas.pixels, width: width, height: height, to: destination.temporaryURL.path,
                                     name: output.displayPath)
        } catch {
            destination.discard()
            throw error
        }
        try destination.commit()
        return Drawing(frames: frames, width: width, height: height)
    }

    /// The smallest and largest sample of each column, per channel, the frames drawn and their
    /// seconds. The columns are laid out for the length the file resolves to; a decode that
    /// gives another length (a header that lied undetected) is laid out again for the true one.
    static func columnExtremes(of url: URL, columns: Int, range: TimeRange?, cancellation: CancellationFlag?) throws
        -> (extremes: [[(min: Float, max: Float)?]], frames: Int64, seconds: Double) {
        var assumed: Int64?
        for _ in 1...2 {
            let file = try AudioFileSource(url: url, cancellation: cancellation)
            var source: any PCMSource = try SampleConverter(file, sampleFormat: .f32)
            if let range { source = RangeSource(source, frames: try range.frames(atRate: file.format.sampleRate, path: file.name)) }
            let total = try assumed ?? source.length.frames ?? file.resolveLength().frames ?? 0
            let accumulator = ColumnExtremes(format: source.format, columns: columns, totalFrames: max(total, 1))
            let drawn = try transfer(source, to: accumulator, cancellation: cancellation)
            if drawn == total || assumed != nil {
                return (accumulator.extremes, drawn, Double(max(drawn, 1)) / Double(file.format.sampleRate))
            }
            assumed = drawn
        }
        return ([], 0, 0)
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
