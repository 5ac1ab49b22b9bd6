import Foundation

/// Where everything of a waveform picture goes, computed once for the raster and the SVG
/// drawings, with the text measured in the font it is drawn in: per file a title row (its
/// name, channels and rate), a band per channel with the channel's name in its corner and a
/// faint grid at half the band's height (its level in dB at the band's right), and a time axis
/// whose ticks sit at round intervals wide enough for their times.
struct WaveformLayout {
    /// A line of text: its left end at `x`, its baseline at `baseline`, `top` the top of its
    /// line (ascent above the baseline), `width` as measured.
    struct Text: Equatable {
        enum Size: Equatable { case title, label }
        let string: String
        let size: Size
        let x: Int
        let top: Int
        let baseline: Int
        let width: Int
        let height: Int
    }

    /// One channel's band: the rows between `upper` and `lower` (inclusive) of each column.
    struct Band {
        let top: Int
        let height: Int
        let middle: Int
        let label: Text?
        /// The rows of the grid at half amplitude (above and below the middle), when inside the band.
        let grid: [Int]
        /// The grid's level ("-6 dB"), at the band's right edge above the upper grid line.
        let gridLabel: Text?
        let columns: [(upper: Int, lower: Int)?]
    }

    /// A tick of the time axis, with its time when it is a labelled one.
    struct Tick {
        let x: Int
        let length: Int
        let label: Text?
    }

    /// One file.
    struct Panel {
        let title: Text?
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

    /// Measures text; nil for a picture without text (`--no-axis-labels`).
    struct Metrics {
        let width: (String, Text.Size) -> Int
        let ascent: (Text.Size) -> Int
        let lineHeight: (Text.Size) -> Int

        init(_ fonts: WaveformFonts) {
            width = { text, size in (size == .title ? fonts.title : fonts.label).width(of: text) }
            ascent = { size in (size == .title ? fonts.title : fonts.label).ascent }
            lineHeight = { size in (size == .title ? fonts.title : fonts.label).lineHeight }
        }
    }

    static let majorTick = 6
    static let minorTick = 3
    /// The fewest rows a panel's bands may have.
    static let minimumBands = 8
    /// The smallest gap in pixels between two times under the axis.
    static let labelGap = 12
    /// The smallest gap in pixels between two minor ticks.
    static let minorGap = 5

    let width: Int
    let height: Int
    let panels: [Panel]

    init(width: Int, height: Int, files: [Measured], metrics: Metrics?, amplitudeScale: WaveformStyle.AmplitudeScale) {
        self.width = width
        self.height = height
        let panelHeight = height / max(files.count, 1)
        panels = files.enumerated().map { index, file in
            Self.panel(file, top: index * panelHeight, height: panelHeight, width: width, metrics: metrics,
                       scale: Self.factor(amplitudeScale, file))
        }
    }

    /// Rows above the bands: the title's line and a gap on each side, so it touches nothing.
    static func titleHeight(_ metrics: Metrics?) -> Int { metrics.map { $0.lineHeight(.title) + 6 } ?? 2 }

    /// Rows at the bottom of each panel: the axis line, the ticks, a gap, the times and a gap.
    static func axisHeight(_ metrics: Metrics?) -> Int { 1 + majorTick + (metrics.map { 2 + $0.lineHeight(.label) + 2 } ?? 1) }

    /// The smallest picture height for `files` files.
    static func minimumHeight(files: Int, metrics: Metrics?) -> Int {
        (titleHeight(metrics) + axisHeight(metrics) + minimumBands) * files
    }

    /// The factor samples are multiplied by: the one asked for, or the one that makes the
    /// file's loudest sample fill its band (at most 1000×: silence stays flat).
    static func factor(_ scale: WaveformStyle.AmplitudeScale, _ file: Measured) -> Double {
        switch scale {
        case .factor(let factor): return factor
        case .auto:
            let peak = file.extremes.joined().compactMap { $0 }.map { Swift.max(abs($0.min), abs($0.max)) }.max() ?? 0
            return peak > 0.001 ? 1 / Double(peak) : 1
        }
    }

    private static func text(_ string: String, _ size: Text.Size, x: Int, top: Int, metrics: Metrics) -> Text {
        Text(string: string, size: size, x: x, top: top, baseline: top + metrics.ascent(size),
             width: metrics.width(string, size), height: metrics.lineHeight(size))
    }

    private static func panel(_ file: Measured, top: Int, height: Int, width: Int, metrics: Metrics?, scale: Double) -> Panel {
        let channels = file.channelNames.count == 1 ? "mono" : "\(file.channelNames.count) channels"
        let title = metrics.map { text("\(file.name)  \(channels), \(file.sampleRate) Hz", .title, x: 3, top: top + 3, metrics: $0) }
        let bandsTop = top + titleHeight(metrics)
        let bandsHeight = height - titleHeight(metrics) - axisHeight(metrics)
        let bandHeight = max(1, bandsHeight / max(file.extremes.count, 1))
        let bands = file.extremes.enumerated().map { channel, columns in
            let bandTop = bandsTop + channel * bandHeight
            let name = channel < file.channelNames.count ? file.channelNames[channel] : "\(channel + 1)"
            let middle = bandTop + (bandHeight - 1) / 2
            let labelFits = metrics.map { bandHeight >= $0.lineHeight(.label) + 2 } ?? false
            let label = labelFits ? metrics.map { text(name, .label, x: 3, top: bandTop + 1, metrics: $0) } : nil
            // The grid at half amplitude after scaling: the level those rows stand for.
            let half = 0.5 / scale
            let grid = half <= 1 ? [row(Float(half * scale), top: bandTop, height: bandHeight),
                                    row(Float(-half * scale), top: bandTop, height: bandHeight)] : []
            let spaced = grid.count == 2 && grid[1] - grid[0] >= 6
            var gridLabel: Text?
            if spaced, let metrics, bandHeight >= 3 * metrics.lineHeight(.label) {
                let level = String(format: "%.0f dB", 20 * log10(half))
                let levelWidth = metrics.width(level, .label)
                gridLabel = text(level, .label, x: Swift.max(0, width - levelWidth - 3),
                                 top: Swift.max(bandTop, grid[0] - metrics.lineHeight(.label) - 1), metrics: metrics)
            }
            return Band(top: bandTop, height: bandHeight, middle: middle, label: label, grid: spaced ? grid : [],
                        gridLabel: gridLabel,
                        columns: columns.map { extreme in
                            extreme.map { (row(Float(Double($0.max) * scale), top: bandTop, height: bandHeight),
                                           row(Float(Double($0.min) * scale), top: bandTop, height: bandHeight)) }
                        })
        }
        let axisTop = top + height - axisHeight(metrics)
        return Panel(title: title, bands: bands, axisTop: axisTop,
                     ticks: ticks(seconds: file.seconds, width: width, top: axisTop, metrics: metrics))
    }

    /// The row of sample value `value` (full scale ±1) in a band, clipped to the band.
    static func row(_ value: Float, top: Int, height: Int) -> Int {
        let clamped = Double(Swift.max(-1, Swift.min(1, value)))
        return top + Int(((1 - clamped) * Double(height - 1) / 2).rounded())
    }

    /// Ticks at a round interval wide enough that every time fits beside the next with a gap
    /// (tenths and hundredths of a second, then 1, 2, 5, 10, 15, 30 seconds, 1, 2, 5, 10, 15,
    /// 30 minutes, hours), each labelled, with minor ticks between them where they are far
    /// enough apart; a time at an edge is kept inside the picture, and one that would touch the
    /// time before it is not written.
    static func ticks(seconds: Double, width: Int, top: Int, metrics: Metrics?) -> [Tick] {
        let total = Swift.max(seconds, 1e-6)
        let (step, divisions) = tickStep(seconds: total, width: width) { step in
            let widest = metrics.map { $0.width(timeLabel(total, step: step, total: total), .label) } ?? 0
            return Double(Swift.max(widest + labelGap, 40))
        }
        let pixelsPerSecond = Double(width) / total
        let minor = step / Double(divisions) * pixelsPerSecond >= Double(minorGap) ? divisions : 1
        var ticks: [Tick] = []
        var labelEnd = Int.min
        var index = 0
        while Double(index) * step / Double(minor) <= total + 1e-9 {
            let time = Double(index) * step / Double(minor)
            let x = Swift.min(Int((time * pixelsPerSecond).rounded()), width - 1)
            let major = index % minor == 0
            var label: Text?
            if major, let metrics {
                let string = timeLabel(time, step: step, total: total)
                let textWidth = metrics.width(string, .label)
                // Centred on its tick, kept inside the picture at either edge.
                let left = Swift.max(0, Swift.min(x - textWidth / 2, width - textWidth))
                if left >= labelEnd + labelGap {
                    label = text(string, .label, x: left, top: top + 1 + majorTick + 2, metrics: metrics)
                    labelEnd = left + textWidth
                }
            }
            ticks.append(Tick(x: x, length: major ? majorTick : minorTick, label: label))
            index += 1
        }
        return ticks
    }

    /// The round intervals, in seconds, with the minor ticks each is divided into.
    static let roundSteps: [(step: Double, divisions: Int)] = [
        (1, 5), (2, 4), (5, 5), (10, 5), (15, 3), (30, 3), (60, 4), (120, 4), (300, 5), (600, 5), (900, 3), (1800, 3),
        (3600, 4), (7200, 4), (3 * 3600, 3), (6 * 3600, 6), (12 * 3600, 4), (24 * 3600, 4),
    ]

    /// The smallest round interval whose ticks lie at least `spacing(step)` pixels apart, and
    /// the minor ticks it is divided into: below a second 1, 2 or 5 × a power of ten, then
    /// ``roundSteps``, then whole days.
    static func tickStep(seconds: Double, width: Int, spacing: (Double) -> Double) -> (step: Double, divisions: Int) {
        func fits(_ step: Double) -> Bool { step / seconds * Double(width) >= spacing(step) }
        var power = pow(10, floor(log10(Swift.min(seconds * 40 / Double(width), 0.5))))
        while power < 1 {
            for (multiple, divisions) in [(1.0, 5), (2.0, 4), (5.0, 5)] where multiple * power < 1 && fits(multiple * power) {
                return (multiple * power, divisions)
            }
            power *= 10
        }
        if let round = roundSteps.first(where: { fits($0.step) }) { return round }
        var days = 2.0
        while !fits(days * 86_400) { days *= 2 }
        return (days * 86_400, 4)
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
