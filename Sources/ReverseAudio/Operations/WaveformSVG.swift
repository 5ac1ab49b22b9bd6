/// A waveform picture as SVG: lines and paths for the waves and the axis, text elements for the
/// labels (selectable, searchable, sharp at any size), at the same places as in a raster picture.
enum WaveformSVG {
    typealias Color = WaveformStyle.Color

    /// The SVG document of `layout`, in `style`; its text in the font the layout was measured
    /// with (named first, then any sans serif), at the same pixel sizes.
    static func document(_ layout: WaveformLayout, style: WaveformStyle) -> String {
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(layout.width)" height="\(layout.height)" \
            viewBox="0 0 \(layout.width) \(layout.height)" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" \
            font-size="\(WaveformStyle.labelSize)">
            <rect width="100%" height="100%" fill="\(style.backgroundColor.hex)"/>

            """
        let ink = style.axisLabelColor
        for panel in layout.panels {
            svg += "<g class=\"file\">\n" + (panel.title.map { text($0, role: "file", ink) } ?? "")
            for band in panel.bands {
                svg += "<g class=\"channel\">\n"
                svg += line(x1: 0, y1: Double(band.middle) + 0.5, x2: Double(layout.width), y2: Double(band.middle) + 0.5, style.gridColor)
                for row in band.grid {
                    svg += "<line x1=\"0\" y1=\"\(Double(row) + 0.5)\" x2=\"\(layout.width)\" y2=\"\(Double(row) + 0.5)\" "
                        + "stroke=\"\(style.gridColor.hex)\" stroke-width=\"1\" stroke-dasharray=\"1 2\"/>\n"
                }
                var path = ""
                for (x, rows) in band.columns.enumerated() {
                    guard let rows else { continue }
                    path += "M\(x).5 \(rows.upper)V\(rows.lower + 1)"
                }
                svg += "<path d=\"\(path)\" stroke=\"\(style.waveColor.hex)\" stroke-width=\"1\" fill=\"none\"/>\n"
                for (label, role) in [(band.label, "channel"), (band.gridLabel, "level")] {
                    guard let label else { continue }
                    svg += "<rect x=\"\(label.x - 2)\" y=\"\(label.top)\" width=\"\(label.width + 4)\" "
                        + "height=\"\(label.height)\" fill=\"\(style.backgroundColor.hex)\"/>\n"
                    svg += text(label, role: role, ink)
                }
                svg += "</g>\n"
            }
            let axis = Double(panel.axisTop) + 0.5
            svg += line(x1: 0, y1: axis, x2: Double(layout.width), y2: axis, ink)
            let ticks = panel.ticks.map { "M\($0.x).5 \(panel.axisTop + 1)V\(panel.axisTop + 1 + $0.length)" }.joined()
            svg += "<path d=\"\(ticks)\" stroke=\"\(ink.hex)\" stroke-width=\"1\"/>\n"
            for label in panel.ticks.compactMap(\.label) { svg += text(label, role: "time", ink) }
            svg += "</g>\n"
        }
        return svg + "</svg>\n"
    }

    private static func line(x1: Double, y1: Double, x2: Double, y2: Double, _ stroke: Color) -> String {
        "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"\(stroke.hex)\" stroke-width=\"1\"/>\n"
    }

    /// A text element on the baseline the layout measured.
    private static func text(_ text: WaveformLayout.Text, role: String, _ fill: Color) -> String {
        let size = text.size == .title ? " font-size=\"\(WaveformStyle.titleSize)\"" : ""
        return "<text class=\"\(role)\" x=\"\(text.x)\" y=\"\(text.baseline)\"\(size) fill=\"\(fill.hex)\">\(escaped(text.string))</text>\n"
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
