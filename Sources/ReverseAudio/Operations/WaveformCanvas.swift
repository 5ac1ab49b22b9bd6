/// A waveform picture drawn into RGB pixels, for PNG and JPEG.
struct WaveformCanvas {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    /// The pixels of `layout`.
    init(_ layout: WaveformLayout) {
        width = layout.width
        height = layout.height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0..<width, y: 0..<height, Waveform.background)
        for panel in layout.panels { draw(panel) }
    }

    mutating func set(_ x: Int, _ y: Int, _ color: [UInt8]) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let start = (y * width + x) * 3
        pixels[start] = color[0]
        pixels[start + 1] = color[1]
        pixels[start + 2] = color[2]
    }

    mutating func fill(x: Range<Int>, y: Range<Int>, _ color: [UInt8]) {
        for row in y { for column in x { set(column, row, color) } }
    }

    /// `text` in the bitmap font.
    mutating func draw(_ text: WaveformLayout.Text, _ color: [UInt8]) {
        for (index, character) in text.string.enumerated() {
            let left = text.x + index * BitmapFont.advance
            for (row, bits) in BitmapFont.glyph(character).enumerated() {
                for column in 0..<BitmapFont.glyphWidth where bits & (0x10 >> column) != 0 {
                    set(left + column, text.y + row, color)
                }
            }
        }
    }

    private mutating func draw(_ panel: WaveformLayout.Panel) {
        draw(panel.title, Waveform.text)
        for band in panel.bands {
            for x in 0..<width { set(x, band.middle, Waveform.midline) }
            for (x, rows) in band.columns.enumerated() {
                guard let rows else { continue }
                for y in rows.upper...rows.lower { set(x, y, Waveform.wave) }
            }
            // The channel's name on a clear patch, so a loud wave does not hide it.
            if band.height >= BitmapFont.glyphHeight + 2 {
                fill(x: 0..<(band.label.x + band.label.width + 2), y: band.top..<(band.top + BitmapFont.glyphHeight + 2),
                     Waveform.background)
                draw(band.label, Waveform.text)
            }
        }
        for x in 0..<width { set(x, panel.axisTop, Waveform.axis) }
        for tick in panel.ticks {
            for y in (panel.axisTop + 1)...(panel.axisTop + tick.length) { set(tick.x, y, Waveform.axis) }
            if let label = tick.label { draw(label, Waveform.text) }
        }
    }
}
