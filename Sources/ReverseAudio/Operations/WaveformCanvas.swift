/// A waveform picture drawn into RGB pixels, for PNG and JPEG; its text antialiased through
/// FreeType.
struct WaveformCanvas {
    typealias Color = WaveformStyle.Color
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    /// The pixels of `layout`, in `style`, its text set in `fonts`.
    init(_ layout: WaveformLayout, style: WaveformStyle, fonts: WaveformFonts?) {
        width = layout.width
        height = layout.height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        let background = style.backgroundColor
        pixels.withUnsafeMutableBufferPointer { buffer in
            for index in stride(from: 0, to: buffer.count, by: 3) {
                (buffer[index], buffer[index + 1], buffer[index + 2]) = (background.red, background.green, background.blue)
            }
        }
        for panel in layout.panels { draw(panel, style: style, fonts: fonts) }
    }

    mutating func set(_ x: Int, _ y: Int, _ color: Color) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let start = (y * width + x) * 3
        pixels[start] = color.red
        pixels[start + 1] = color.green
        pixels[start + 2] = color.blue
    }

    /// `color` over the pixel, `coverage` of 255 of the way.
    mutating func blend(_ x: Int, _ y: Int, _ color: Color, _ coverage: UInt8) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let start = (y * width + x) * 3
        let alpha = Int(coverage)
        for (offset, value) in [color.red, color.green, color.blue].enumerated() {
            let old = Int(pixels[start + offset])
            pixels[start + offset] = UInt8((old * (255 - alpha) + Int(value) * alpha + 127) / 255)
        }
    }

    mutating func fill(x: Range<Int>, y: Range<Int>, _ color: Color) {
        for row in y { for column in x { set(column, row, color) } }
    }

    /// A vertical run of `color` from row `top` to row `bottom` (inclusive) of column `x`.
    private mutating func column(_ x: Int, from top: Int, to bottom: Int, _ color: Color) {
        guard x >= 0, x < width else { return }
        for y in Swift.max(top, 0)...Swift.min(bottom, height - 1) where top <= bottom {
            let start = (y * width + x) * 3
            pixels[start] = color.red
            pixels[start + 1] = color.green
            pixels[start + 2] = color.blue
        }
    }

    /// `text` in its face.
    mutating func draw(_ text: WaveformLayout.Text, _ color: Color, fonts: WaveformFonts) {
        let face = text.size == .title ? fonts.title : fonts.label
        face.draw(text.string, x: text.x, baseline: text.baseline) { x, y, coverage in blend(x, y, color, coverage) }
    }

    private mutating func draw(_ panel: WaveformLayout.Panel, style: WaveformStyle, fonts: WaveformFonts?) {
        let ink = style.axisLabelColor
        if let title = panel.title, let fonts { draw(title, ink, fonts: fonts) }
        for band in panel.bands {
            for x in 0..<width { set(x, band.middle, style.gridColor) }
            for row in band.grid {
                // Dotted: every other pixel, so the grid reads as a guide, not as signal.
                for x in stride(from: 0, to: width, by: 3) { set(x, row, style.gridColor) }
            }
            for (x, rows) in band.columns.enumerated() {
                guard let rows else { continue }
                column(x, from: rows.upper, to: rows.lower, style.waveColor)
            }
            guard let fonts else { continue }
            // The channel's name and the grid's level on clear patches, so a loud wave does not hide them.
            for label in [band.label, band.gridLabel].compactMap({ $0 }) {
                fill(x: (label.x - 2)..<(label.x + label.width + 2), y: label.top..<(label.top + label.height),
                     style.backgroundColor)
                draw(label, ink, fonts: fonts)
            }
        }
        for x in 0..<width { set(x, panel.axisTop, ink) }
        for tick in panel.ticks {
            column(tick.x, from: panel.axisTop + 1, to: panel.axisTop + tick.length, ink)
            if let label = tick.label, let fonts { draw(label, ink, fonts: fonts) }
        }
    }
}
