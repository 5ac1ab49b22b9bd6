import Foundation

/// Where everything of a waveform picture goes, computed once for the raster and the SVG
/// drawings: per file a title row (its name, channels and rate), a band per channel with the
/// channel's name in its corner, and a time axis whose ticks carry their times.
struct WaveformLayout {
    /// A line of text; `x`, `y` is its top-left corner, in the bitmap font's metrics.
    struct Text: Equatable {
        let string: String
        let x: Int
        let y: Int
        var width: Int { BitmapFont.width(of: string) }
    }

    /// One channel's band: the rows between `upper` and `lower` (inclusive) of each column.
    struct Band {
        let top: Int
        let height: Int
        let middle: Int
        let label: Text
        let columns: [(upper: Int, lower: Int)?]
    }

    /// A tick of the time axis, with its time when there is room for it.
    struct Tick {
        let x: Int
        let length: Int
        let label: Text?
    }

    /// One file.
    struct Panel {
        let title: Text
        let bands: [Band]
        let axisTop: Int
        let ticks: [Tick]
    }

    /// What a panel shows of one file.
    struct Measured {
        let name: String
        let channelNames: [String]
        let sampleRate: Int
        let extremes: [[(min: Float, max: Float)?]]
        let seconds: Double
    }

    /// Rows above the bands for the file's name.
    static let titleHeight = 11
    /// Rows at the bottom of each panel: the axis line, ticks, a gap and the times.
    static let axisHeight = 17
    static let majorTick = 6
    static let minorTick = 3
    /// The fewest rows a panel's bands may have.
    static let minimumBands = 8
    /// The smallest gap in pixels between two times under the axis.
    static let labelGap = 6

    let width: Int
    let height: Int
    let panels: [Panel]

    init(width: Int, height: Int, files: [Measured]) {
        self.width = width
        self.height = height
        let panelHeight = height / max(files.count, 1)
        panels = files.enumerated().map { index, file in
            Self.panel(file, top: index * panelHeight, height: panelHeight, width: width)
        }
    }

    /// The smallest picture height for `files` files.
    static func minimumHeight(files: Int) -> Int { (titleHeight + axisHeight + minimumBands) * files }

    private static func panel(_ file: Measured, top: Int, height: Int, width: Int) -> Panel {
        let channels = file.channelNames.count == 1 ? "mono" : "\(file.channelNames.count) channels"
        let title = Text(string: "\(file.name)  \(channels), \(file.sampleRate) Hz", x: 2, y: top + 2)
        let bandsTop = top + titleHeight
        let bandsHeight = height - titleHeight - axisHeight
        let bandHeight = max(1, bandsHeight / max(file.extremes.count, 1))
        let bands = file.extremes.enumerated().map { channel, columns in
            let bandTop = bandsTop + channel * bandHeight
            let name = channel < file.channelNames.count ? file.channelNames[channel] : "\(channel + 1)"
            return Band(top: bandTop, height: bandHeight, middle: bandTop + (bandHeight - 1) / 2,
                        label: Text(string: name, x: 2, y: bandTop + 1),
                        columns: columns.map { extreme in
                            extreme.map { (row($0.max, top: bandTop, height: bandHeight), row($0.min, top: bandTop, height: bandHeight)) }
                        })
        }
        let axisTop = top + height - axisHeight
        return Panel(title: title, bands: bands, axisTop: axisTop, ticks: ticks(seconds: file.seconds, width: width, top: axisTop))
    }

    /// The row of sample value `value` (full scale ±1) in a band.
    static func row(_ value: Float, top: Int, height: Int) -> Int {
        let clamped = Double(Swift.max(-1, Swift.min(1, value)))
        return top + Int(((1 - clamped) * Double(height - 1) / 2).rounded())
    }

    /// A tick at every step of a round interval (longer every fifth), each with its time when
    /// the time fits beside the previous one.
    static func ticks(seconds: Double, width: Int, top: Int) -> [Tick] {
        let step = tickStep(seconds: seconds, width: width)
        var ticks: [Tick] = []
        var labelEnd = Int.min
        var index = 0
        while Double(index) * step <= seconds + 1e-9 {
            let time = Double(index) * step
            let x = Swift.min(Int((time / seconds * Double(width)).rounded()), width - 1)
            let string = timeLabel(time, step: step, total: seconds)
            let left = Swift.max(0, Swift.min(x - BitmapFont.width(of: string) / 2, width - BitmapFont.width(of: string)))
            var label: Text?
            if left >= labelEnd + labelGap {
                label = Text(string: string, x: left, y: top + majorTick + 3)
                labelEnd = left + BitmapFont.width(of: string)
            }
            ticks.append(Tick(x: x, length: index % 5 == 0 ? majorTick : minorTick, label: label))
            index += 1
        }
        return ticks
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

    /// `time` as people write it: seconds under a minute ("2.5s"), else minutes and seconds
    /// ("1:05", "1:02:30" past an hour), with as many decimals as the step needs.
    static func timeLabel(_ time: Double, step: Double, total: Double) -> String {
        let decimals = step >= 1 ? 0 : Int(ceil(-log10(step) - 1e-9))
        if total < 60 { return String(format: "%.\(decimals)fs", time) }
        let secondsWidth = decimals == 0 ? 2 : 3 + decimals
        let seconds = String(format: "%0\(secondsWidth).\(decimals)f", time.truncatingRemainder(dividingBy: 60))
        let minutes = Int(time / 60)
        return total < 3600 ? "\(minutes):\(seconds)" : String(format: "%d:%02d:", minutes / 60, minutes % 60) + seconds
    }
}
