import CFreeType
import Foundation

/// A font at one pixel size, through FreeType: measures lines of text and rasterises them
/// (8-bit coverage, antialiased) for the waveform pictures. Owns its `FT_Library` and `FT_Face`
/// and frees them once. Used from one thread at a time.
package final class FontFace {
    private let library: FT_Library
    private let face: FT_Face
    /// The size asked for, in pixels (the em square).
    package let pixelSize: Int
    /// Pixels from the baseline up to the top of the tallest glyph.
    package let ascent: Int
    /// Pixels from the baseline down to the bottom of the deepest descender (g, p, y).
    package let descent: Int
    /// The file the face came from.
    package let path: String

    /// The height of a line: ascent and descent.
    package var lineHeight: Int { ascent + descent }

    /// The face in the font file at `path`, at `pixelSize` pixels; nil when FreeType cannot
    /// read the file as a font.
    package init?(path: String, pixelSize: Int) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return nil }
        var face: FT_Face?
        guard FT_New_Face(library, path, 0, &face) == 0, let face else {
            FT_Done_FreeType(library)
            return nil
        }
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(max(1, pixelSize))) == 0 else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            return nil
        }
        self.library = library
        self.face = face
        self.pixelSize = pixelSize
        self.path = path
        // 26.6 fixed point, rounded outwards.
        let metrics = face.pointee.size.pointee.metrics
        ascent = Int((metrics.ascender + 63) >> 6)
        descent = Int((-metrics.descender + 63) >> 6)
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// The width of `text` in pixels: the sum of its glyphs' advances.
    package func width(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            guard FT_Load_Char(face, FT_ULong(scalar.value), ra_ft_load_default()) == 0 else { return width }
            return width + Self.pixels(face.pointee.glyph.pointee.advance.x)
        }
    }

    /// Rasterises `text` with its baseline's left end at (`x`, `baseline`), calling `plot` with
    /// each covered pixel and its coverage (1 to 255); pixels may lie outside any picture.
    package func draw(_ text: String, x: Int, baseline: Int, plot: (_ x: Int, _ y: Int, _ coverage: UInt8) -> Void) {
        var pen = x
        for scalar in text.unicodeScalars {
            guard FT_Load_Char(face, FT_ULong(scalar.value), ra_ft_load_render()) == 0 else { continue }
            let glyph = face.pointee.glyph.pointee
            let bitmap = glyph.bitmap
            let left = pen + Int(glyph.bitmap_left)
            let top = baseline - Int(glyph.bitmap_top)
            // A rendered glyph's rows run top down (a positive pitch); 8-bit grey.
            if let buffer = bitmap.buffer, bitmap.pitch > 0 {
                let pitch = Int(bitmap.pitch)
                for row in 0..<Int(bitmap.rows) {
                    for column in 0..<Int(bitmap.width) {
                        let coverage = buffer[row * pitch + column]
                        if coverage > 0 { plot(left + column, top + row, coverage) }
                    }
                }
            }
            pen += Self.pixels(glyph.advance.x)
        }
    }

    /// 26.6 fixed point to whole pixels, rounded.
    private static func pixels(_ value: FT_Pos) -> Int { Int((value + 32) >> 6) }

    /// The font files tried for a sans-serif face, in order: `REVERSE_AUDIO_FONT` when set, then
    /// DejaVu Sans where Linux distributions put it, then Arial and Helvetica on macOS.
    package static var candidates: [String] {
        let chosen = ProcessInfo.processInfo.environment["REVERSE_AUDIO_FONT"].map { [$0] } ?? []
        return chosen + [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf", "/usr/local/share/fonts/DejaVuSans.ttf",
            "/System/Library/Fonts/Supplemental/Arial.ttf", "/Library/Fonts/Arial.ttf", "/System/Library/Fonts/Helvetica.ttc",
        ]
    }

    /// The first of ``candidates`` FreeType reads, at `pixelSize`; nil when none is there.
    package static func sansSerif(pixelSize: Int) -> FontFace? {
        for path in candidates where FileManager.default.isReadableFile(atPath: path) {
            if let face = FontFace(path: path, pixelSize: pixelSize) { return face }
        }
        return nil
    }
}
