import ArgumentParser
import Foundation
import ReverseAudio

struct WaveformCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform",
        abstract: "Draw a file's waveform (.png, .jpg, .svg) or write waveform data for web players (.dat, .json).",
        discussion: """
            The output's extension picks the format (standard output, -, gets PNG). A picture shows the smallest and largest sample of every \
            pixel column, a band per channel (labelled), the file's name and a time axis with numbered ticks; \
            with --compare a second file is drawn under the first (the original above its reversal).

            .dat and .json are BBC audiowaveform's formats, byte for byte (peaks.js and wavesurfer.js read \
            them): a min/max pair per pixel of --samples-per-pixel frames (default 256), the channels mixed \
            to one unless --split-channels. --zoom 256,512,1024 writes every level from one decoding pass, \
            each to the output's name with the level before the extension (song-256.dat, song-512.dat, ...).
            """)

    static let examples = [
        "reverse-audio waveform song.mp3 song.png --width 1600 --height 400",
        "reverse-audio waveform phrase.wav both.svg --compare phrase-REVERSED.wav",
        "reverse-audio waveform song.mp3 -o song.dat --pixels-per-second 20 --bits 8",
        "reverse-audio waveform song.flac song.dat --zoom 256,512,1024,2048,4096",
        "reverse-audio waveform song.flac song.json --split-channels",
    ]

    /// Every extension the output may have.
    static let extensions = Waveform.PictureFormat.extensions + WaveformData.Format.allCases.map(\.rawValue)

    @Argument(help: "The audio file to draw or measure.", completion: .file())
    var input: String

    @Argument(help: "The file to write (or -o FILE): .png, .jpg/.jpeg, .svg, .dat or .json.",
              completion: .file(extensions: WaveformCommand.extensions))
    var output: String?

    @Option(help: "Picture width in pixels, 16 to 16384 (default 1200).")
    var width: Int?

    @Option(help: "Picture height in pixels (the whole picture), 16 to 4096 (default 300; peak memory stays under 1 GiB at 16384 x 4096).")
    var height: Int?

    @OptionGroup var range: RangeFlags

    @Option(help: "Picture: a second file drawn under the first.", completion: .file())
    var compare: String?

    @Option(help: ArgumentHelp("Picture: the waves' colour, as audiowaveform takes it (default 2040a0).", valueName: "RRGGBB"))
    var waveformColor: String?

    @Option(help: ArgumentHelp("Picture: the background's colour (default ffffff).", valueName: "RRGGBB"))
    var backgroundColor: String?

    @Option(help: ArgumentHelp("Picture: the colour of the axis and the text (default 282828).", valueName: "RRGGBB"))
    var axisLabelColor: String?

    @Option(help: ArgumentHelp("Picture: samples multiplied by N before they are drawn (clipped at the band's edges), or auto: the loudest fills the band (default 1).",
                               valueName: "N|auto"))
    var amplitudeScale: String?

    @Flag(help: "Picture: no text (file and channel names, times, levels); no font needed.")
    var noAxisLabels = false

    @Option(help: "Data: frames per pixel, at least 2 (default 256).")
    var samplesPerPixel: Int?

    @Option(help: "Data: pixels per second of audio (frames per pixel = the sample rate / this, truncated).")
    var pixelsPerSecond: Int?

    @Option(help: ArgumentHelp("Data: several levels of frames per pixel from one pass, each written to NAME-LEVEL.EXT.",
                               valueName: "N,N,..."))
    var zoom: String?

    @Option(help: "Data: 8 or 16 bits a value (default 16).")
    var bits: Int?

    @Flag(help: "Data: a min/max pair per channel instead of the channels mixed to one.")
    var splitChannels = false

    @Option(help: "Threads the input is decoded on, segment by segment (default: the cores; 1: one continuous decode). The result is the same.")
    var threads: Int?

    @OptionGroup(title: SharedOptions.title) var shared: SingleOutputOptions
    var verbosity: VerbosityOptions { shared.verbosity }

    /// The file to write, as given (`-o` or the argument).
    private var outputName: String { (try? shared.output(positional: output, command: "waveform")) ?? "" }

    /// The output's extension, lowercased; `png` for standard output (`-`, `/dev/stdout`).
    private var outputExtension: String { Waveform.PictureFormat.extensionOf(StandardStreams.outputURL(outputName)) }

    private var writesData: Bool { WaveformData.Format(rawValue: outputExtension) != nil }

    func validate() throws {
        let output = try shared.output(positional: output, command: "waveform")
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1 to 256") }
        guard Self.extensions.contains(outputExtension) else {
            let named = outputExtension.isEmpty ? "a name without an extension" : "'.\(outputExtension)'"
            throw ValidationError("\(output): cannot tell the format from \(named); name the file \(Self.extensions.map { "." + $0 }.joined(separator: " "))")
        }
        if writesData {
            let given = [("--width", width != nil), ("--height", height != nil), ("--compare", compare != nil),
                         ("--waveform-color", waveformColor != nil), ("--background-color", backgroundColor != nil),
                         ("--axis-label-color", axisLabelColor != nil), ("--amplitude-scale", amplitudeScale != nil),
                         ("--no-axis-labels", noAxisLabels)].filter(\.1)
            if let first = given.first { throw ValidationError("\(first.0) draws a picture; .\(outputExtension) is waveform data") }
            let scales = [("--samples-per-pixel", samplesPerPixel != nil), ("--pixels-per-second", pixelsPerSecond != nil),
                          ("--zoom", zoom != nil)].filter(\.1).map(\.0)
            if scales.count > 1 { throw ValidationError("give one of \(scales.joined(separator: ", "))") }
            if let samplesPerPixel, !(2...Int(Int32.max)).contains(samplesPerPixel) {
                // The bound that was crossed: the .dat format holds a 32-bit signed count.
                let bound = samplesPerPixel < 2 ? "at least 2" : "at most \(Int32.max) (the .dat format's largest)"
                throw ValidationError("--samples-per-pixel must be \(bound), not \(samplesPerPixel)")
            }
            if let pixelsPerSecond, pixelsPerSecond < 1 {
                throw ValidationError("--pixels-per-second must be at least 1, not \(pixelsPerSecond)")
            }
            _ = try zoomLevels()
            if let bits, !WaveformData.bitDepths.contains(bits) { throw ValidationError("--bits must be 8 or 16, not \(bits)") }
            if zoom != nil, StandardStreams.outputURL(output).path == "/dev/stdout" {
                throw ValidationError("--zoom writes one file per level: name a file, not standard output")
            }
        } else {
            let given = [("--samples-per-pixel", samplesPerPixel != nil), ("--pixels-per-second", pixelsPerSecond != nil),
                         ("--zoom", zoom != nil), ("--bits", bits != nil), ("--split-channels", splitChannels)].filter(\.1)
            if let first = given.first { throw ValidationError("\(first.0) is for waveform data (.dat, .json), not a .\(outputExtension) picture") }
            _ = try style()
            if let width, !(16...Waveform.maximumWidth).contains(width) {
                throw ValidationError("--width must be 16 to \(Waveform.maximumWidth) pixels, not \(width)")
            }
            if let height, !(16...Waveform.maximumHeight).contains(height) {
                throw ValidationError("--height must be 16 to \(Waveform.maximumHeight) pixels, not \(height) (the picture is held in memory: about 9 bytes a pixel)")
            }
        }
    }

    /// How the picture looks, from the picture options.
    private func style() throws -> WaveformStyle {
        var style = WaveformStyle()
        for (option, value, keyPath) in [("--waveform-color", waveformColor, \WaveformStyle.waveColor),
                                         ("--background-color", backgroundColor, \WaveformStyle.backgroundColor),
                                         ("--axis-label-color", axisLabelColor, \WaveformStyle.axisLabelColor)] {
            guard let value else { continue }
            guard let color = WaveformStyle.Color(hex: value) else {
                throw ValidationError("\(option) takes a colour as 6 hexadecimal digits, RRGGBB (2040a0), not '\(value)'")
            }
            style[keyPath: keyPath] = color
        }
        if let amplitudeScale {
            if amplitudeScale == "auto" {
                style.amplitudeScale = .auto
            } else if let factor = Double(amplitudeScale), factor.isFinite, factor > 0, factor <= 1000 {
                style.amplitudeScale = .factor(factor)
            } else {
                throw ValidationError("--amplitude-scale takes a number above 0, at most 1000, or auto, not '\(amplitudeScale)'")
            }
        }
        style.labels = !noAxisLabels
        return style
    }

    /// The levels of --zoom, in the order given; nil without --zoom.
    private func zoomLevels() throws -> [Int]? {
        guard let zoom else { return nil }
        let levels = zoom.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !levels.isEmpty, levels.allSatisfy({ $0 != nil && (2...Int(Int32.max)).contains($0!) }) else {
            throw ValidationError("--zoom takes frames per pixel separated by commas, each 2 to \(Int32.max) (256,512,1024), not '\(zoom)'")
        }
        let distinct = levels.compactMap { $0 }
        guard Set(distinct).count == distinct.count else { throw ValidationError("--zoom names a level twice: '\(zoom)'") }
        return distinct
    }

    /// The data files to write, each at its zoom, with its name as the user would spell it.
    private func dataOutputs(_ outputURL: URL) throws -> [(name: String, output: WaveformData.Output)] {
        if let levels = try zoomLevels() {
            // The level goes before the extension; a relative name stays relative in messages.
            let stem = (outputName as NSString).deletingPathExtension
            return levels.map { level in
                let name = "\(stem)-\(level).\(outputURL.pathExtension)"
                return (name, WaveformData.Output(URL(fileURLWithPath: name), zoom: .samplesPerPixel(level)))
            }
        }
        let zoom = pixelsPerSecond.map(WaveformData.Zoom.pixelsPerSecond) ?? .samplesPerPixel(samplesPerPixel ?? 256)
        return [(outputName, WaveformData.Output(outputURL, zoom: zoom))]
    }

    func run() async throws {
        let output = outputName
        let outputURL = StandardStreams.outputURL(output)
        let display = ProgressDisplay(style: shared.progress.style)
        let handler = display.handler(file: input, index: 1, count: 1)
        do {
            let inputURL = try StandardStreams.seekableInputURL(input)
            let drawn = try range.range()
            let overwrite = shared.overwrite
            let threads = threads ?? ConversionOptions.availableCores
            if writesData {
                let outputs = try dataOutputs(outputURL)
                let (bits, split) = (bits ?? 16, splitChannels)
                let written = try await SignalCancellation.run {
                    try await BlockingWork.run { flag in
                        try WaveformData.write(inputURL, to: outputs.map(\.output), bits: bits, splitChannels: split, range: drawn,
                                               overwrite: overwrite, threads: threads, cancellation: flag, progress: handler)
                    }
                }
                display.clear()
                written.warnings.forEach(ErrorReporting.printWarning)
                for (file, level) in zip(outputs, written.levels) {
                    let channels = "\(written.channels) channel\(written.channels == 1 ? "" : "s")"
                    shared.result.print("wrote \(input) -> \(file.name) (\(level.samplesPerPixel) samples per pixel, \(level.pixels) pixels, \(channels), \(bits) bits)",
                                        json: ["input": input, "output": file.name, "samplesPerPixel": level.samplesPerPixel,
                                               "pixels": level.pixels, "channels": written.channels, "bits": bits,
                                               "frames": written.frames, "status": "done"],
                                        output: file.output.url.path)
                }
                return
            }
            let compareURL = try compare.map { try StandardStreams.seekableInputURL($0) }
            let (width, height) = (width ?? 1200, height ?? 300)
            let style = try style()
            let drawing = try await SignalCancellation.run {
                try await BlockingWork.run { flag in
                    try Waveform.draw(inputURL, to: outputURL, width: width, height: height, range: drawn,
                                      compare: compareURL, overwrite: overwrite, threads: threads, style: style,
                                      cancellation: flag, progress: handler)
                }
            }
            display.clear()
            drawing.warnings.forEach(ErrorReporting.printWarning)
            let frames = drawing.frames.map { "\($0) frames" }.joined(separator: " and ")
            shared.result.print("drew \(input)\(compare.map { " and \($0)" } ?? "") -> \(output) (\(width)x\(height), \(frames))",
                                json: ["input": input, "compare": compare.map { $0 as Any } ?? NSNull(), "output": output, "width": width, "height": height,
                                       "frames": drawing.frames, "status": "done"],
                                output: outputURL.path)
        } catch {
            display.clear()
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
    }
}
