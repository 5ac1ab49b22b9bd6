import FontRaster
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Pictures of audio: the smallest and largest sample of every pixel column, for each channel,
/// above a time axis whose ticks carry their times, with the file's name over its panel and each
/// channel's name in its band. The output's extension picks the format (``PictureFormat``):
/// PNG or JPEG through libavcodec's encoders, or SVG.
///
/// ```swift
/// try Waveform.draw(URL(fileURLWithPath: "phrase.wav"), to: URL(fileURLWithPath: "phrase.svg"),
///                   compare: URL(fileURLWithPath: "phrase-REVERSED.wav"))
/// ```
///
/// Column `c` of `width` covers frames `c × N / width ..< (c + 1) × N / width` of the `N` frames
/// drawn, so the picture of a reversal is the original's mirrored left to right.
public enum Waveform {
    /// The widest picture: 16384 pixels.
    package static let maximumWidth = 16384
    /// The tallest picture: 4096 pixels. libavcodec refuses pictures whose rows of 8 bytes a
    /// pixel pass 2 GiB in all (16384 × 16384 among them), and memory grows with the area:
    /// at 16384 × 4096 a drawing peaks under 1 GiB (the canvas, the encoder's copy and its output).
    package static let maximumHeight = 4096

    /// What a drawing showed.
    package struct Drawing: Sendable, Equatable {
        /// Frames drawn of each file, in panel order: the range's, or the whole decode's.
        package let frames: [Int64]
        /// The picture's width in pixels.
        package let width: Int
        /// The picture's height in pixels.
        package let height: Int
        /// Problems with the files drawn that did not stop the work (damage skipped, a file cut
        /// short), in panel order.
        package var warnings: [ReverseAudioWarning] = []
    }

    /// Draws `input` (and `compare` in a second panel under it) into a picture at `output`, in
    /// the format its extension names, on a thread of its own; cancelling the task stops the
    /// work and removes the partial picture.
    /// - Parameters:
    ///   - input: the audio file drawn in the upper panel.
    ///   - output: the `.png`, `.jpg`/`.jpeg` or `.svg` file to write (written under a temporary
    ///     name and published whole).
    ///   - width: pixels across (one column per width-th of the audio).
    ///   - height: pixels down, for the whole picture.
    ///   - range: the part of the audio to draw; nil for all of it (applies to both files).
    ///   - compare: a second file drawn under the first, such as its reversal.
    ///   - overwrite: replace an existing file at `output`.
    ///   - progress: called with fractions of the audio measured (of both files), from 0 to 1.
    public static func draw(_ input: URL, to output: URL, width: Int = 1200, height: Int = 300, range: TimeRange? = nil,
                            compare: URL? = nil, overwrite: Bool = false, progress: ProgressHandler? = nil) async throws {
        _ = try await BlockingWork.run { flag in
            try draw(input, to: output, width: width, height: height, range: range, compare: compare, overwrite: overwrite,
                     cancellation: flag, progress: progress)
        }
    }

    /// Draws `source` (any `PCMSource`: an ``AudioReader``, a chain of combinators, a source
    /// of your own) into a picture at `output`, titled `name`, as a file is drawn. A source whose
    /// length is not known is read twice: once to count its frames, then from its start again.
    /// - Parameters:
    ///   - source: the frames drawn, read from their start; give it up to the call.
    ///   - name: the panel's title.
    ///   - output: the `.png`, `.jpg`/`.jpeg` or `.svg` file to write.
    ///   - width: pixels across (one column per width-th of the audio).
    ///   - height: pixels down.
    ///   - overwrite: replace an existing file at `output`.
    ///   - progress: called with fractions of the audio measured, from 0 to 1.
    public static func draw(_ source: sending any PCMSource, named name: String = "source", to output: URL, width: Int = 1200,
                            height: Int = 300, overwrite: Bool = false, progress: ProgressHandler? = nil) async throws {
        // `sending`: the caller gave the source up, so the work's thread alone uses it.
        nonisolated(unsafe) let handed = source
        _ = try await BlockingWork.run { flag in
            try draw([.source(handed, name: name)], to: output, width: width, height: height, overwrite: overwrite,
                     style: WaveformStyle(), cancellation: flag, progress: progress)
        }
    }

    /// The blocking form of ``draw(_:to:width:height:range:compare:overwrite:progress:)``, on
    /// `threads` threads, stopped by `cancellation`.
    /// - Parameters:
    ///   - input: the audio file drawn in the upper panel.
    ///   - output: the `.png`, `.jpg`/`.jpeg` or `.svg` file to write (written under a temporary
    ///     name and published whole).
    ///   - width: pixels across (one column per width-th of the audio).
    ///   - height: pixels down, for the whole picture.
    ///   - range: the part of the audio to draw; nil for all of it (applies to both files).
    ///   - compare: a second file drawn under the first, such as its reversal.
    ///   - overwrite: replace an existing file at `output`.
    ///   - threads: threads each file is decoded on, segment by segment (1: one continuous
    ///     decode); the picture is the same.
    ///   - style: colours, amplitude scale, and whether there is text.
    ///   - cancellation: stops the work (and removes the partial picture) when set.
    ///   - progress: called with fractions of the audio measured (of both files), from 0 to 1.
    /// - Returns: the frames drawn of each file.
    @discardableResult
    package static func draw(_ input: URL, to output: URL, width: Int = 1200, height: Int = 300,
                             range: TimeRange? = nil, compare: URL? = nil, overwrite: Bool = false,
                             threads: Int = ConversionOptions.availableCores, style: WaveformStyle = WaveformStyle(),
                             cancellation: CancellationFlag?, progress: ProgressHandler? = nil) throws -> Drawing {
        let files = [input] + (compare.map { [$0] } ?? [])
        return try draw(files.map { .file($0, range: range) }, to: output, width: width, height: height, overwrite: overwrite,
                        threads: threads, style: style, cancellation: cancellation, progress: progress)
    }

    /// The smallest and largest sample of each column, per channel, the frames drawn, their
    /// seconds, their format and the problems met.
    typealias Measurement = (extremes: [[(min: Float, max: Float)?]], frames: Int64, seconds: Double, format: PCMFormat,
                             warnings: [ReverseAudioWarning])

    /// What a panel shows: a file (or a range of it), or a caller's source.
    enum Panel {
        case file(URL, range: TimeRange?)
        case source(any PCMSource, name: String)
    }

    /// Draws `panels`, one above the other, into a picture at `output`.
    private static func draw(_ panels: [Panel], to output: URL, width: Int, height: Int, overwrite: Bool,
                             threads: Int = 1, style: WaveformStyle, cancellation: CancellationFlag?,
                             progress: ProgressHandler?) throws -> Drawing {
        guard let format = PictureFormat(url: output) else {
            throw ReverseAudioError.output(.unknownOutputFormat(path: output.displayPath, extension: output.pathExtension,
                                                        known: PictureFormat.extensions))
        }
        let inputs = panels.compactMap { if case .file(let url, _) = $0 { url } else { nil } }
        var fonts: WaveformFonts?
        if style.labels {
            guard let loaded = WaveformFonts.load() else {
                throw ReverseAudioError.output(.cannotCreateOutput(
                    path: output.displayPath,
                    reason: "no font for the picture's text (tried \(FontFace.candidates.joined(separator: ", "))); "
                        + "install DejaVu Sans (Debian: fonts-dejavu-core), set REVERSE_AUDIO_FONT to a font file, or draw without text"))
            }
            fonts = loaded
        }
        let metrics = fonts.map(WaveformLayout.Metrics.init)
        let lowest = WaveformLayout.minimumHeight(files: panels.count, metrics: metrics)
        guard (16...maximumWidth).contains(width), (lowest...maximumHeight).contains(height) else {
            throw ReverseAudioError.setting(.outOfRange(.waveformSize, value: "\(width)×\(height)",
                                                      allowed: "16 to \(maximumWidth) pixels wide and \(lowest) to \(maximumHeight) high"))
        }
        let destination = try OutputFile(url: output, overwrite: overwrite, inputs: inputs)
        let reporter = ProgressReporter(progress)
        let measured = try panels.enumerated().map { index, panel in
            let share = 1 / Double(panels.count)
            return try measure(panel, columns: width, threads: threads, cancellation: cancellation,
                               progress: reporter.stage(from: Double(index) * share, to: Double(index + 1) * share))
        }
        let layout = WaveformLayout(width: width, height: height, files: measured.map(\.panel), metrics: metrics,
                                    amplitudeScale: style.amplitudeScale)
        do {
            switch format {
            case .png, .jpeg:
                try PictureFile.write(WaveformCanvas(layout, style: style, fonts: fonts).pixels, width: width, height: height,
                                      format: format == .png ? .png : .jpeg, to: destination.temporaryURL.path,
                                      name: output.displayPath)
            case .svg:
                do {
                    try Data(WaveformSVG.document(layout, style: style).utf8).write(to: destination.temporaryURL)
                } catch {
                    throw ReverseAudioError.output(.writeFailed(path: output.displayPath, reason: error.localizedDescription))
                }
            }
        } catch {
            destination.discard()
            throw error
        }
        try destination.commit()
        reporter.complete()
        var drawing = Drawing(frames: measured.map(\.frames), width: width, height: height)
        drawing.warnings = measured.flatMap(\.warnings)
        return drawing
    }

    /// One file's panel and the frames it shows.
    private static func measure(_ panel: Panel, columns: Int, threads: Int, cancellation: CancellationFlag?,
                                progress: ProgressHandler?) throws -> (panel: WaveformLayout.Measured, frames: Int64,
                                                                       warnings: [ReverseAudioWarning]) {
        let measured: Measurement
        let name: String
        switch panel {
        case .file(let url, let range):
            name = url.lastPathComponent
            measured = try columnExtremes(of: url, columns: columns, range: range, threads: threads, cancellation: cancellation,
                                          progress: progress)
        case .source(let source, let sourceName):
            name = sourceName
            measured = try columnExtremes(of: source, name: sourceName, columns: columns, cancellation: cancellation,
                                          progress: progress)
        }
        let panel = WaveformLayout.Measured(
            name: name,
            channelNames: ChannelNames.of(layoutName: measured.format.channelLayoutName, channelCount: measured.format.channelCount),
            sampleRate: measured.format.sampleRate, extremes: measured.extremes, seconds: measured.seconds)
        return (panel, measured.frames, measured.warnings)
    }

    /// The smallest and largest sample of each column of a caller's `source`, counted first
    /// when its length is not known (then read again from its start).
    private static func columnExtremes(of source: any PCMSource, name: String, columns: Int, cancellation: CancellationFlag?,
                                       progress: ProgressHandler?) throws
        -> Measurement {
        let scheduler = Scheduler(threads: 1, progress: progress, cancellation: cancellation)
        let (input, _, _) = try AudioChain.job(over: source, name: name, recipe: ChainRecipe(sampleFormat: .f32), scheduler: scheduler)
        var total = input.source.length.frames
        if total == nil {
            var counted: Int64 = 0
            while let chunk = try input.source.read(maximumFrames: transferChunkFrames) {
                if cancellation?.isCancelled == true { throw CancellationError() }
                counted += Int64(chunk.frameCount)
            }
            try input.source.seek(to: 0, endingAt: nil)
            total = counted
        }
        let accumulator = ColumnExtremes(format: input.source.format, columns: columns, totalFrames: max(total ?? 0, 1))
        let drawn = try scheduler.transfer(input, reversed: false, into: accumulator).frames
        let format = input.source.format
        return (accumulator.extremes, drawn, Double(max(drawn, 1)) / Double(format.sampleRate), format, [])
    }

    /// The smallest and largest sample of each column, per channel, the frames drawn, their
    /// seconds and their format. The columns are laid out for the length the file resolves to;
    /// a decode that gives another length (a header that lied undetected) is laid out again for
    /// the true one.
    static func columnExtremes(of url: URL, columns: Int, range: TimeRange?, threads: Int = 1, cancellation: CancellationFlag?,
                               progress: ProgressHandler? = nil) throws
        -> Measurement {
        var assumed: Int64?
        while true {
            let chain = try AudioChain(url: url, recipe: ChainRecipe(range: range, sampleFormat: .f32), cancellation: cancellation ?? CancellationFlag())
            let file = chain.file
            // A second pass (the length misstated) is decoded in order: the first found the damage.
            let threads = assumed == nil ? threads : 1
            let total = try assumed ?? chain.source.length.frames ?? file.resolveLength().frames ?? 0
            let accumulator = ColumnExtremes(format: chain.source.format, columns: columns, totalFrames: max(total, 1))
            let scheduler = Scheduler(threads: threads, progress: progress, cancellation: cancellation)
            let (input, _) = try chain.job(threads: threads, scheduler: scheduler)
            let drawn = try scheduler.transfer(input, reversed: false, into: accumulator).frames
            if drawn == total || assumed != nil {
                return (accumulator.extremes, drawn, Double(max(drawn, 1)) / Double(file.format.sampleRate), file.format,
                        chain.warnings)
            }
            assumed = drawn
        }
    }
}
