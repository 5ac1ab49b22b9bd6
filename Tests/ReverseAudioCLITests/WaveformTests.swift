import Foundation
import Testing
import TestSupport

/// `waveform`: PNGs decoded back with the ffmpeg CLI and checked pixel by pixel.
@Suite(.runsProcesses) struct WaveformTests {
    static let waveColor: [UInt8] = [32, 64, 160]
    static let axisColor: [UInt8] = [40, 40, 40]
    /// Rows above the bands (the file's name) and below them (the time axis and its times), in
    /// DejaVu Sans at 13 and 11 pixels (the scripts install it): a 17-row line and 3 rows
    /// either side; the axis, 6-row ticks, a gap, a 14-row line and a gap.
    static let titleHeight = 23
    static let axisHeight = 25
    /// The channel's name sits on a clear patch in the band's top-left corner, the grid's level
    /// in its top-right: columns left of this (or as far from the right edge), rows above
    /// `labelRows` below the band's top.
    static let labelColumns = 40
    static let labelRows = 18

    /// The picture as rows of RGB triplets, decoded by ffmpeg.
    struct Picture {
        let width: Int
        let height: Int
        let bytes: [UInt8]

        init(_ url: URL) async throws {
            let probe = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=width,height,codec_name",
                                                         "-of", "default=nw=1", url.path])
            let fields = Dictionary(uniqueKeysWithValues: probe.outputText.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            })
            #expect(fields["codec_name"] == "png")
            width = Int(fields["width"] ?? "") ?? 0
            height = Int(fields["height"] ?? "") ?? 0
            let raw = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", url.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            bytes = [UInt8](raw.standardOutput)
        }

        func color(_ x: Int, _ y: Int) -> [UInt8] { Array(bytes[(y * width + x) * 3..<(y * width + x) * 3 + 3]) }
        /// Rows of column `x` in `rows` drawn in `color`.
        func rows(ofColumn x: Int, in rows: Range<Int>, color: [UInt8]) -> [Int] { rows.filter { self.color(x, $0) == color } }
    }

    static func make(_ name: String, _ source: String, in directory: TemporaryDirectory) async throws -> URL {
        let url = directory.file(name)
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", source, "-c:a", "pcm_s16le", url.path])
        try #require(result.status == 0, "\(result.errorText)")
        return url
    }

    static func draw(_ input: URL, _ output: URL, _ options: [String] = []) async throws {
        let result = try await CLI.run(["waveform", input.path, output.path] + options)
        try #require(result.status == 0, "\(result.errorText)")
    }

    @Test("the PNG has the requested size; silence is a flat line; a full-scale square wave fills its band")
    func silenceAndSquare() async throws {
        let directory = try TemporaryDirectory()
        let silence = try await Self.make("silence.wav", "anullsrc=r=8000:cl=mono:d=1", in: directory)
        let square = try await Self.make("square.wav", "aevalsrc=exprs='1-2*mod(n\\,2)':s=8000:d=1", in: directory)
        let (width, height) = (300, 120)
        let band = Self.titleHeight..<(height - Self.axisHeight)  // one channel: the band above the axis
        try await Self.draw(silence, directory.file("silence.png"), ["--width", "\(width)", "--height", "\(height)"])
        let quiet = try await Picture(directory.file("silence.png"))
        #expect(quiet.width == width && quiet.height == height)
        for x in 0..<width { #expect(quiet.rows(ofColumn: x, in: band, color: Self.waveColor).count == 1, "column \(x)") }
        let middle = quiet.rows(ofColumn: 0, in: band, color: Self.waveColor)
        #expect((0..<width).allSatisfy { quiet.rows(ofColumn: $0, in: band, color: Self.waveColor) == middle }, "a flat line")

        try await Self.draw(square, directory.file("square.png"), ["--width", "\(width)", "--height", "\(height)"])
        let loud = try await Picture(directory.file("square.png"))
        for x in 0..<width {
            let clear = x < Self.labelColumns || x >= width - Self.labelColumns ? (band.lowerBound + Self.labelRows)..<band.upperBound : band
            #expect(loud.rows(ofColumn: x, in: clear, color: Self.waveColor) == Array(clear), "column \(x)")
        }
    }

    @Test("the time axis: ticks at increasing, even positions")
    func timeAxis() async throws {
        let directory = try TemporaryDirectory()
        let input = try await Self.make("tone.wav", "sine=f=440:r=8000:d=3", in: directory)
        try await Self.draw(input, directory.file("tone.png"), ["--width", "600", "--height", "100"])
        let picture = try await Picture(directory.file("tone.png"))
        let tickRow = picture.height - Self.axisHeight + 2
        let ticks = (0..<picture.width).filter { picture.color($0, tickRow) == Self.axisColor }
        #expect(ticks.count >= 4, "\(ticks)")
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0 < $1 })
        let gaps = zip(ticks, ticks.dropFirst()).map { $1 - $0 }
        #expect((gaps.max() ?? 0) - (gaps.min() ?? 0) <= 1, "even spacing: \(gaps)")
        // The ticks mark round times of the 3 s file, from 0 at the left edge: each gap is one
        // round step (1, 2 or 5 × a power of ten seconds) at 200 pixels per second.
        #expect(ticks.first == 0, "the first tick is time 0: \(ticks)")
        let secondsPerGap = Double(gaps.reduce(0, +)) / Double(max(gaps.count, 1)) / 200
        let roundSteps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]
        #expect(roundSteps.contains { abs($0 - secondsPerGap) < 0.006 }, "\(secondsPerGap) s between ticks")
        #expect(Double(ticks.last ?? 0) / 200 <= 3 + 0.01, "no tick past the end")
    }

    @Test("a reversal's picture is the original's mirrored left to right (±1 column); --compare draws both")
    func mirrored() async throws {
        let directory = try TemporaryDirectory()
        let original = Fixtures.audioFilesDirectory.appendingPathComponent("Phrase.wav")
        let reversed = directory.file("reversed.wav")
        #expect(try await CLI.convert(original, reversed, reverse: true).status == 0)
        let (width, height) = (400, 100)
        try await Self.draw(original, directory.file("a.png"), ["--width", "\(width)", "--height", "\(height)"])
        try await Self.draw(reversed, directory.file("b.png"), ["--width", "\(width)", "--height", "\(height)"])
        let a = try await Picture(directory.file("a.png"))
        let b = try await Picture(directory.file("b.png"))
        let band = (Self.titleHeight + Self.labelRows)..<(height - Self.axisHeight)
        // Column bins of the two files need not fall on the same frames: each column's extent
        // lies within the mirrored column's and its neighbours' (and the other way round).
        func neighbours(_ picture: Picture, around x: Int) -> Set<Int> {
            Set((max(0, x - 1)...min(width - 1, x + 1)).flatMap { picture.rows(ofColumn: $0, in: band, color: Self.waveColor) })
        }
        // Away from the channel names' patches at the left edge (of each band).
        for x in Self.labelColumns..<(width - Self.labelColumns) {
            let mirror = width - 1 - x
            #expect(Set(a.rows(ofColumn: x, in: band, color: Self.waveColor)).isSubset(of: neighbours(b, around: mirror)), "column \(x)")
            #expect(Set(b.rows(ofColumn: mirror, in: band, color: Self.waveColor)).isSubset(of: neighbours(a, around: x)), "column \(x)")
        }
        try await Self.draw(original, directory.file("both.png"), ["--width", "\(width)", "--height", "\(2 * height)", "--compare", reversed.path])
        let both = try await Picture(directory.file("both.png"))
        #expect(both.width == width && both.height == 2 * height)
        // The lower panel is the reversal's picture.
        for x in stride(from: 0, to: width, by: 7) {
            #expect(both.rows(ofColumn: x, in: (height + band.lowerBound)..<(height + band.upperBound), color: Self.waveColor).map { $0 - height }
                    == b.rows(ofColumn: x, in: band, color: Self.waveColor))
        }
    }
}
