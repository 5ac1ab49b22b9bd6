/// A waveform picture as SVG: lines and paths for the waves and the axis, text elements for the
/// labels (selectable, searchable, sharp at any size), at the same places as in a raster picture.
enum WaveformSVG {
    /// The SVG document of `layout`.
    static func document(_ layout: WaveformLayout) -> String {
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(layout.width)" height="\(layout.height)" \
            viewBox="0 0 \(layout.width) \(layout.height)" font-family="monospace" font-size="9">
            <rect width="100%" height="100%" fill="\(color(Waveform.background))"/>

            """
        for panel in layout.panels {
            svg += "<g class=\"file\">\n" + text(panel.title, role: "file")
            for band in panel.bands {
                svg += "<g class=\"channel\">\n"
                svg += line(x1: 0, y1: Double(band.middle) + 0.5, x2: Double(layout.width), y2: Double(band.middle) + 0.5, Waveform.midline)
                var path = ""
                for (x, rows) in band.columns.enumerated() {
                    guard let rows else { continue }
                    path += "M\(x).5 \(rows.upper)V\(rows.lower + 1)"
                }
                svg += "<path d=\"\(path)\" stroke=\"\(color(Waveform.wave))\" stroke-width=\"1\" fill=\"none\"/>\n"
                if band.height >= BitmapFont.glyphHeight + 2 {
                    svg += "<rect x=\"0\" y=\"\(band.top)\" width=\"\(band.label.x + band.label.width + 2)\" "
                        + "height=\"\(BitmapFont.glyphHeight + 2)\" fill=\"\(color(Waveform.background))\"/>\n"
                    svg += text(band.label, role: "channel")
                }
                svg += "</g>\n"
            }
            let axis = Double(panel.axisTop) + 0.5
            svg += line(x1: 0, y1: axis, x2: Double(layout.width), y2: axis, Waveform.axis)
            let ticks = panel.ticks.map { "M\($0.x).5 \(panel.axisTop + 1)V\(panel.axisTop + 1 + $0.length)" }.joined()
            svg += "<path d=\"\(ticks)\" stroke=\"\(color(Waveform.axis))\" stroke-width=\"1\"/>\n"
            for label in panel.ticks.compactMap(\.label) { svg += text(label, role: "time") }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    private static func line(x1: Double, y1: Double, x2: Double, y2: Double, _ stroke: [UInt8]) -> String {
        "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"\(color(stroke))\" stroke-width=\"1\"/>\n"
    }

    /// A text element whose baseline sits where the bitmap font's glyphs end.
    private static func text(_ text: WaveformLayout.Text, role: String) -> String {
        "<text class=\"\(role)\" x=\"\(text.x)\" y=\"\(text.y + BitmapFont.glyphHeight)\" fill=\"\(color(Waveform.text))\">\(escaped(text.string))</text>\n"
    }

    private static func color(_ rgb: [UInt8]) -> String {
        "#" + rgb.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// `string` with XML's special characters escaped (a file may be named `a&b<c>.wav`).
    static func escaped(_ string: String) -> String {
        var result = ""
        for character in string {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            // XML 1.0 cannot hold control characters at all, even escaped.
            case let control where control.unicodeScalars.allSatisfy({ $0.value < 0x20 }): result += "?"
            default: result.append(character)
            }
        }
        return result
    }
}
