import FontRaster

/// How a waveform picture looks: its colours, its amplitude scale and whether it has text,
/// with the names and meanings audiowaveform users know (`--waveform-color`,
/// `--background-color`, `--axis-label-color`, `--amplitude-scale`, `--no-axis-labels`).
package struct WaveformStyle: Sendable, Equatable {
    /// A colour, as the `RRGGBB` hexadecimal digits audiowaveform takes.
    package struct Color: Sendable, Equatable {
        package let red: UInt8
        package let green: UInt8
        package let blue: UInt8

        package init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
            (self.red, self.green, self.blue) = (red, green, blue)
        }

        /// `RRGGBB` (an optional `#` before it, any case); nil for anything else.
        package init?(hex text: String) {
            let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
            self.init(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        }

        /// `#rrggbb`, for SVG.
        package var hex: String {
            "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }

        /// This colour `share` of the way to `other` (0: this one, 1: the other).
        package func mixed(with other: Color, _ share: Double) -> Color {
            func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * share).rounded()) }
            return Color(mix(red, other.red), mix(green, other.green), mix(blue, other.blue))
        }
    }

    /// How sample values are scaled before they are drawn.
    package enum AmplitudeScale: Sendable, Equatable {
        /// Multiplied by the factor (1: full scale fills the band), clipped at the band's edges.
        case factor(Double)
        /// Scaled so that the loudest sample of each file fills its band.
        case auto
    }

    package var waveColor = Color(32, 64, 160)
    package var backgroundColor = Color(255, 255, 255)
    /// The axis, its ticks and every text.
    package var axisLabelColor = Color(40, 40, 40)
    package var amplitudeScale = AmplitudeScale.factor(1)
    /// Draw the file names, channel names, times and the amplitude grid's level.
    package var labels = true

    package init() {}

    /// The middle line of each band and the amplitude grid: faint, between the background and the axis.
    package var gridColor: Color { backgroundColor.mixed(with: axisLabelColor, 0.2) }

    /// The pixel sizes of the text: the file's title, and every other label.
    static let titleSize = 13
    static let labelSize = 11
}

/// The two faces a picture's text is set in, one file, two sizes.
struct WaveformFonts {
    let title: FontFace
    let label: FontFace

    /// DejaVu Sans (or the system's sans serif), or nil when no font file is found.
    static func load() -> WaveformFonts? {
        guard let title = FontFace.sansSerif(pixelSize: WaveformStyle.titleSize),
              let label = FontFace(path: title.path, pixelSize: WaveformStyle.labelSize) else { return nil }
        return WaveformFonts(title: title, label: label)
    }
}
