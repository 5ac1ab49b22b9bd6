import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// `waveform` pictures people read: numbered ticks, file and channel names, JPEG through the
/// MJPEG encoder, SVG with text labels; the output's extension picks the format or is an error.
@Suite struct WaveformPictureTests {
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
    func svgLabels() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("both.svg")
        let result = try CLI.run(["waveform", Self.stereo.path, output.path, "--compare", Self.mono.path, "--width", "800", "--height", "300"])
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
        #expect(try CLI.run(["waveform", Self.mono.path, twoMono.path, "--compare", Self.mono.path]).status == 0)
        let monoTexts = try Self.parse(twoMono)
        #expect(monoTexts.strings("file").count == 2 && monoTexts.strings("channel") == ["mono", "mono"])
    }

    @Test("a file name with XML's special characters is escaped")
    func svgEscapes() throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture("wav-pcm_s16le-1ch-8000.wav", into: directory, as: "a&b <\"c\">.wav")
        #expect(try CLI.run(["waveform", input.path, directory.file("x.svg").path]).status == 0)
        #expect(try Self.parse(directory.file("x.svg")).strings("file").first?.hasPrefix("a&b <\"c\">.wav") == true)
    }

    @Test(".jpg and .jpeg are JPEG (ffprobe: mjpeg), .png is PNG", arguments: [("x.jpg", "mjpeg"), ("x.jpeg", "mjpeg"), ("x.png", "png")])
    func rasterFormats(_ name: String, _ codec: String) throws {
        let directory = try TemporaryDirectory()
        let result = try CLI.run(["waveform", Self.stereo.path, directory.file(name).path, "--width", "320", "--height", "120"])
        try #require(result.status == 0, "\(result.errorText)")
        let probe = try ProcessRunner.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height",
                                                     "-of", "csv=p=0", directory.file(name).path])
        #expect(probe.outputText.trimmingCharacters(in: .whitespacesAndNewlines) == "\(codec),320,120")
    }

    @Test("standard output (-) gets a PNG, and the summary goes to standard error, not into the picture")
    func standardOutput() throws {
        let result = try CLI.run(["waveform", Self.mono.path, "-", "--width", "64", "--height", "64"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(Array(result.standardOutput.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(result.errorText.contains("drew "))
    }

    @Test("the largest JPEG (16384 × 4096) stays under the 1 GiB the help promises")
    func largestJPEG() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("max.jpg")
        let result = try ProcessRunner.run("/usr/bin/time", ["-f", "peak-kib=%M", BuiltProducts.reverseAudio.path,
                                                            "waveform", Self.stereo.path, output.path, "--width", "16384", "--height", "4096"])
        #expect(result.status == 0, "\(result.errorText)")
        let peak = result.errorLines.last { $0.hasPrefix("peak-kib=") }.flatMap { Int($0.dropFirst(9)) }
        let kib = try #require(peak, "no peak from /usr/bin/time: \(result.errorText)")
        #expect(kib < 1024 * 1024, "peak RSS \(kib / 1024) MiB")
    }

    @Test("the raster picture has ink under the ticks (the times) and in the title row (the name)")
    func rasterLabels() throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("x.png")
        #expect(try CLI.run(["waveform", Self.stereo.path, output.path, "--width", "400", "--height", "120"]).status == 0)
        let raw = try ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", output.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let gray = [UInt8](raw.standardOutput)
        func inked(rows: Range<Int>, columns: Range<Int>) -> Int {
            rows.reduce(0) { total, y in total + columns.filter { gray[y * 400 + $0] < 128 }.count }
        }
        #expect(inked(rows: 2..<9, columns: 0..<150) > 50, "the file's name")
        #expect(inked(rows: (120 - 17 + 9)..<(120 - 1), columns: 0..<400) > 40, "the times under the axis")
    }

    @Test("any other extension, or data options on a picture, or picture options on data, exit 64 naming the choices")
    func usageErrors() throws {
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
            let result = try CLI.run(["waveform", Self.stereo.path] + arguments)
            #expect(result.status == 64 && result.errorText.contains(needle), "\(arguments): \(result.status) \(result.errorText)")
        }
        #expect(directory.contents.isEmpty)
    }

    @Test("--zoom writes NAME-LEVEL.EXT for every level; a zoom the sample rate cannot give is an input error (exit 1) that writes nothing")
    func zoomNames() throws {
        let directory = try TemporaryDirectory()
        let result = try CLI.run(["waveform", Self.stereo.path, directory.file("song.dat").path, "--zoom", "256,512,1024,2048,4096"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(directory.contents == ["song-1024.dat", "song-2048.dat", "song-256.dat", "song-4096.dat", "song-512.dat"])
        let refused = try CLI.run(["waveform", Self.mono.path, directory.file("fine.json").path, "--pixels-per-second", "5000"])
        #expect(refused.status == 1 && refused.errorText.contains("--pixels-per-second"), "\(refused.errorText)")
        #expect(!directory.contents.contains("fine.json"))
    }
}
