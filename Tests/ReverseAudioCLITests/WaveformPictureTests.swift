import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// `waveform` pictures people read: numbered ticks, file and channel names, JPEG through the
/// MJPEG encoder, SVG with text labels; the output's extension picks the format or is an error.
@Suite(.runsProcesses) struct WaveformPictureTests {
    static let stereo = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")
    static let mono = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")

    /// The texts of an SVG by class (`file`, `channel`, `time`), read with Foundation's XMLParser.
    final class SVGTexts: NSObject, XMLParserDelegate {
        private(set) var texts: [(role: String, text: String)] = []
        private var role: String?
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if name == "text" { role = attributes["class"] ?? ""; text = "" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { if role != nil { text += string } }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let role { texts.append((role, text)) }
            role = nil
        }

        func strings(_ role: String) -> [String] { texts.filter { $0.role == role }.map(\.text) }
    }

    static func parse(_ url: URL) throws -> SVGTexts {
        let parser = try #require(XMLParser(contentsOf: url))
        let texts = SVGTexts()
        parser.delegate = texts
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        return texts
    }

    @Test("an SVG parses as XML and holds the file names, the channel names and numbered times; two mono files are two files")
    func svgLabels() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("both.svg")
        let result = try await CLI.run(["waveform", Self.stereo.path, output.path, "--compare", Self.mono.path, "--width", "800", "--height", "300"])
        try #require(result.status == 0, "\(result.errorText)")
        let svg = try Self.parse(output)
        let files = svg.strings("file")
        #expect(files.count == 2)
        #expect(files.first?.hasPrefix("wav-pcm_s16le-2ch-44100.wav") == true && files.first?.contains("2 channels, 44100 Hz") == true, "\(files)")
        #expect(files.last?.hasPrefix("wav-pcm_s16le-1ch-8000.wav") == true && files.last?.contains("mono, 8000 Hz") == true, "\(files)")
        #expect(svg.strings("channel") == ["FL", "FR", "mono"])
        let times = svg.strings("time")
        #expect(times.first == "0.00s" && times.count >= 6, "\(times)")
        #expect(times.contains("0.50s"), "the stereo file's 0.5 s end is numbered: \(times)")

        // Two mono files under --compare: two titles, one "mono" band each.
        let twoMono = directory.file("mono.svg")
        #expect(try await CLI.run(["waveform", Self.mono.path, twoMono.path, "--compare", Self.mono.path]).status == 0)
        let monoTexts = try Self.parse(twoMono)
        #expect(monoTexts.strings("file").count == 2 && monoTexts.strings("channel") == ["mono", "mono"])
    }

    @Test("a file name with XML's special characters is escaped")
    func svgEscapes() async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture("wav-pcm_s16le-1ch-8000.wav", into: directory, as: "a&b <\"c\">.wav")
        #expect(try await CLI.run(["waveform", input.path, directory.file("x.svg").path]).status == 0)
        #expect(try Self.parse(directory.file("x.svg")).strings("file").first?.hasPrefix("a&b <\"c\">.wav") == true)
    }

    @Test(".jpg and .jpeg are JPEG (ffprobe: mjpeg), .png is PNG", arguments: [("x.jpg", "mjpeg"), ("x.jpeg", "mjpeg"), ("x.png", "png")])
    func rasterFormats(_ name: String, _ codec: String) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["waveform", Self.stereo.path, directory.file(name).path, "--width", "320", "--height", "120"])
        try #require(result.status == 0, "\(result.errorText)")
        let probe = try await ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                     "-of", "csv=p=0", directory.file(name).path])
        #expect(probe.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "\(codec),320,120")
    }

    @Test("standard output (-) gets a PNG, and the summary goes to standard error, not into the picture")
    func standardOutput() async throws {
        let result = try await CLI.run(["waveform", Self.mono.path, "-", "--width", "64", "--height", "64"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(Array(result.standardOutput.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(result.errorText.contains("drew "))
    }

    @Test("the largest JPEG (16384 × 4096) stays under the 1 GiB the help promises")
    func largestJPEG() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("max.jpg")
        let result = try await ProcessRunner.run("/usr/bin/time", ["-f", "peak-kib=%M", BuiltProducts.reverseAudio.path,
                                                            "waveform", Self.stereo.path, output.path, "--width", "16384", "--height", "4096"])
        #expect(result.status == 0, "\(result.errorText)")
        let peak = result.errorLines.last { $0.hasPrefix("peak-kib=") }.flatMap { Int($0.dropFirst(9)) }
        let kib = try #require(peak, "no peak from /usr/bin/time: \(result.errorText)")
        #expect(kib < 1024 * 1024, "peak RSS \(kib / 1024) MiB")
    }

    @Test("the raster picture has ink under the ticks (the times) and in the title row (the name)")
    func rasterLabels() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("x.png")
        #expect(try await CLI.run(["waveform", Self.stereo.path, output.path, "--width", "400", "--height", "120"]).status == 0)
        let raw = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let gray = [UInt8](raw.standardOutput)
        func inked(rows: Range<Int>, columns: Range<Int>) -> Int {
            rows.reduce(0) { total, y in total + columns.filter { gray[y * 400 + $0] < 128 }.count }
        }
        #expect(inked(rows: 0..<20, columns: 0..<150) > 50, "the file's name")
        #expect(inked(rows: (120 - 14)..<120, columns: 0..<400) > 40, "the times under the axis")
    }

    @Test("any other extension, or data options on a picture, or picture options on data, exit 64 naming the choices")
    func usageErrors() async throws {
        let directory = try TemporaryDirectory()
        for (arguments, needle) in [([directory.file("x.gif").path], ".png .jpg .jpeg .svg .dat .json"),
                                    ([directory.file("x").path], ".png .jpg .jpeg .svg .dat .json"),
                                    ([directory.file("x.png").path, "--bits", "8"], "--bits"),
                                    ([directory.file("x.svg").path, "--zoom", "256,512"], "--zoom"),
                                    ([directory.file("x.dat").path, "--compare", Self.mono.path], "--compare"),
                                    ([directory.file("x.dat").path, "--width", "300"], "--width"),
                                    ([directory.file("x.dat").path, "--bits", "12"], "8 or 16"),
                                    ([directory.file("x.dat").path, "--samples-per-pixel", "1"], "at least 2"),
                                    ([directory.file("x.dat").path, "--zoom", "256,x"], "--zoom"),
                                    ([directory.file("x.dat").path, "--zoom", "256,256"], "twice"),
                                    ([directory.file("x.dat").path, "--zoom", "256", "--pixels-per-second", "10"], "one of")] {
            let result = try await CLI.run(["waveform", Self.stereo.path] + arguments)
            #expect(result.status == 64 && result.errorText.contains(needle), "\(arguments): \(result.status) \(result.errorText)")
        }
        #expect(directory.contents.isEmpty)
    }

    @Test("--zoom writes NAME-LEVEL.EXT for every level; a zoom the sample rate cannot give is an input error (exit 1) that writes nothing")
    func zoomNames() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["waveform", Self.stereo.path, directory.file("song.dat").path, "--zoom", "256,512,1024,2048,4096"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(directory.contents == ["song-1024.dat", "song-2048.dat", "song-256.dat", "song-4096.dat", "song-512.dat"])
        let refused = try await CLI.run(["waveform", Self.mono.path, directory.file("fine.json").path, "--pixels-per-second", "5000"])
        #expect(refused.status == 1 && refused.errorText.contains("--pixels-per-second"), "\(refused.errorText)")
        #expect(!directory.contents.contains("fine.json"))
    }

    /// The RGB pixels of a picture, through the ffmpeg CLI.
    static func rgb(_ picture: URL) async throws -> [UInt8] {
        let raw = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", picture.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        try #require(raw.status == 0, "\(raw.errorText)")
        return [UInt8](raw.standardOutput)
    }

    @Test("text is set in a real font: antialiased, and g, j, p, q, y reach below the baseline")
    func realFont() async throws {
        let directory = try TemporaryDirectory()
        func lowestInk(named name: String) async throws -> (row: Int, greys: Int) {
            let input = try copyFixture("wav-pcm_s16le-1ch-8000.wav", into: directory, as: name)
            let output = directory.file(name + ".png")
            let result = try await CLI.run(["waveform", input.path, output.path, "--width", "400", "--height", "200"])
            try #require(result.status == 0, "\(result.errorText)")
            let pixels = try await Self.rgb(output)
            // The title row: the name's ink against the white background, left of the channels' text.
            var lowest = 0
            var greys = Set<UInt8>()
            for y in 0..<24 {
                for x in 0..<60 {
                    let value = pixels[(y * 400 + x) * 3]
                    if value < 200 { lowest = max(lowest, y) }
                    if value > 20 && value < 235 { greys.insert(value) }
                }
            }
            return (lowest, greys.count)
        }
        let plain = try await lowestInk(named: "HHHH.wav")
        let descending = try await lowestInk(named: "gjpy.wav")
        #expect(descending.row >= plain.row + 2, "descenders: \(descending.row) vs \(plain.row)")
        #expect(plain.greys >= 8, "antialiased text has many greys, got \(plain.greys)")
    }

    @Test("a 20-minute file: the times under the axis never touch, none runs off the right edge, and they are round")
    func twentyMinuteTicks() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("long20.wav")
        let make = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=50:sample_rate=8000:duration=1200",
                                                   "-ac", "1", input.path])
        try #require(make.status == 0, "\(make.errorText)")
        let output = directory.file("long.svg")
        #expect(try await CLI.run(["waveform", input.path, output.path, "--width", "1200"]).status == 0)
        let svg = try String(contentsOf: output, encoding: .utf8)
        // Each time: its x and text; widths are at most 7 px a character at 11 px.
        let pattern = try NSRegularExpression(pattern: "<text class=\"time\" x=\"(\\d+)\" y=\"\\d+\" fill=\"#[0-9a-f]+\">([^<]+)</text>")
        let matches = pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map { match -> (x: Int, text: String) in
            (Int((svg as NSString).substring(with: match.range(at: 1)))!, (svg as NSString).substring(with: match.range(at: 2)))
        }
        #expect(matches.count >= 5, "\(matches)")
        for (left, right) in zip(matches, matches.dropFirst()) {
            #expect(left.x + 7 * left.text.count + 4 <= right.x, "\(left) touches \(right)")
        }
        if let last = matches.last { #expect(last.x + 7 * last.text.count <= 1200 + 10, "\(last) runs off the edge") }
        // Round steps: every time is a whole number of minutes (or of 30 s).
        for match in matches { #expect(match.text.hasSuffix(":00") || match.text.hasSuffix(":30"), "\(match.text)") }
    }

    @Test("audiowaveform's picture options: colours, amplitude scale, no text")
    func styleOptions() async throws {
        let directory = try TemporaryDirectory()
        let input = Self.stereo.path
        let coloured = directory.file("c.png")
        let result = try await CLI.run(["waveform", input, coloured.path, "--width", "200", "--height", "100",
                                  "--waveform-color", "ff0000", "--background-color", "000000", "--axis-label-color", "00ff00"])
        try #require(result.status == 0, "\(result.errorText)")
        let pixels = try await Self.rgb(coloured)
        func count(_ color: [UInt8]) -> Int {
            stride(from: 0, to: pixels.count, by: 3).filter { Array(pixels[$0..<$0 + 3]) == color }.count
        }
        #expect(Array(pixels[0..<3]) == [0, 0, 0], "the background")
        #expect(count([255, 0, 0]) > 100, "the waves in red")
        #expect(count([0, 255, 0]) > 100, "the axis in green")

        let bare = directory.file("bare.svg")
        #expect(try await CLI.run(["waveform", input, bare.path, "--no-axis-labels"]).status == 0)
        #expect(!(try String(contentsOf: bare, encoding: .utf8)).contains("<text"), "no text without labels")

        // A quiet file drawn at auto scale fills more of its band than at the default scale.
        let quiet = directory.file("quiet.wav")
        #expect(try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=200:sample_rate=8000:duration=1",
                                                "-af", "volume=0.05", "-ac", "1", quiet.path]).status == 0)
        func inkRows(_ scale: [String]) async throws -> Int {
            let output = directory.file("q\(scale.count).png")
            #expect(try await CLI.run(["waveform", quiet.path, output.path, "--width", "100", "--height", "200", "--no-axis-labels"] + scale).status == 0)
            let rgb = try await Self.rgb(output)
            return (0..<200).filter { y in (0..<100).contains { x in Array(rgb[(y * 100 + x) * 3..<(y * 100 + x) * 3 + 3]) == [32, 64, 160] } }.count
        }
        let plain = try await inkRows([])
        let auto = try await inkRows(["--amplitude-scale", "auto"])
        #expect(auto > plain * 5, "auto \(auto) rows, 1× \(plain) rows")

        for bad in [["--waveform-color", "red"], ["--amplitude-scale", "0"], ["--amplitude-scale", "loud"]] {
            let refused = try await CLI.run(["waveform", input, directory.file("x.png").path] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.errorText)")
        }
        let onData = try await CLI.run(["waveform", input, directory.file("x.dat").path, "--waveform-color", "ff0000"])
        #expect(onData.status == 64, "picture options on data: \(onData.errorText)")
    }

    @Test("a tall band shows the grid at half amplitude and its level")
    func amplitudeGrid() async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("g.svg")
        #expect(try await CLI.run(["waveform", Self.mono.path, output.path, "--height", "300"]).status == 0)
        let svg = try String(contentsOf: output, encoding: .utf8)
        #expect(svg.contains(">-6 dB</text>"), "the level of the grid")
        #expect(svg.contains("stroke-dasharray"), "the grid lines")
        let scaled = directory.file("s.svg")
        #expect(try await CLI.run(["waveform", Self.mono.path, scaled.path, "--height", "300", "--amplitude-scale", "4"]).status == 0)
        #expect(try String(contentsOf: scaled, encoding: .utf8).contains(">-18 dB</text>"), "the grid's level follows the scale")
    }
}
