import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Waveform data for web players (peaks.js, wavesurfer.js) in BBC audiowaveform's `.dat` and
/// `.json` formats, byte for byte as audiowaveform writes them.
///
/// Each pixel holds the smallest and largest 16-bit sample of `samplesPerPixel` frames (the
/// last pixel what is left), of the channels mixed to one (their sum divided by their count)
/// or of each channel apart. Several zoom levels come from one decoding pass:
///
/// ```swift
/// let song = URL(fileURLWithPath: "song.mp3")
/// try await WaveformData.write(song, to: [256, 512, 1024].map {
///     WaveformData.Output(URL(fileURLWithPath: "song-\($0).dat"), zoom: .samplesPerPixel($0))
/// })
/// ```
///
/// `.dat` (little-endian): version (1 for one channel, 2 for more), flags (bit 0: 8-bit values),
/// sample rate, samples per pixel, pixel count, the channel count (version 2 only), then per
/// pixel and channel the minimum and maximum as 16-bit or 8-bit integers. `.json`: the same
/// numbers under `version` (always 2), `channels`, `sample_rate`, `samples_per_pixel`, `bits`,
/// `length` and `data`. 8-bit values are the 16-bit ones divided by 256, truncated toward zero.
public enum WaveformData {
    /// The file formats, chosen by the output's extension.
    public enum Format: String, Sendable, CaseIterable {
        /// audiowaveform's binary format.
        case dat
        /// audiowaveform's JSON format.
        case json

        /// The format `url`'s extension names, if any.
        package init?(url: URL) { self.init(rawValue: url.pathExtension.lowercased()) }
    }

    /// How many frames one pixel covers.
    public enum Zoom: Sendable, Equatable {
        /// A number of frames (at least 2).
        case samplesPerPixel(Int)
        /// A number of pixels a second: the sample rate divided by it, truncated, as audiowaveform
        /// does (at least 2 frames).
        case pixelsPerSecond(Int)

        /// The frames a pixel covers at `sampleRate`.
        package func samplesPerPixel(atRate sampleRate: Int) -> Int {
            switch self {
            case .samplesPerPixel(let frames): return frames
            case .pixelsPerSecond(let pixels): return pixels > 0 ? sampleRate / pixels : 0
            }
        }
    }

    /// One file to write: its name (`.dat` or `.json`) and its zoom.
    public struct Output: Sendable, Equatable {
        /// The file to write (under a temporary name, published whole).
        public let url: URL
        /// How many frames one of its pixels covers.
        public let zoom: Zoom

        /// The file `url` at `zoom`.
        public init(_ url: URL, zoom: Zoom) {
            self.url = url
            self.zoom = zoom
        }
    }

    /// What was written.
    package struct Written: Sendable, Equatable {
        /// Frames measured.
        package let frames: Int64
        /// The input's sample rate.
        package let sampleRate: Int
        /// Channels in each file: 1 when mixed.
        package let channels: Int
        /// Per output, in order: its samples per pixel and its pixel count.
        package let levels: [(samplesPerPixel: Int, pixels: Int64)]
        /// Problems with the input that did not stop the work (damage skipped, a file cut short).
        package var warnings: [ReverseAudioWarning] = []

        /// Equal when every figure is (tuples have no `==` of their own to synthesise from).
        package static func == (a: Written, b: Written) -> Bool {
            a.frames == b.frames && a.sampleRate == b.sampleRate && a.channels == b.channels
                && a.levels.elementsEqual(b.levels) { $0 == $1 } && a.warnings == b.warnings
        }
    }

    /// The bit depths a file can have.
    package static let bitDepths = [8, 16]

    /// Writes each of `outputs` from one decode of `input`, on a thread of its own; cancelling
    /// the task stops the work and removes the partial files.
    /// - Parameters:
    ///   - input: the audio file.
    ///   - outputs: the files, `.dat` or `.json`, each at its zoom.
    ///   - bits: 8 or 16 bits a value.
    ///   - splitChannels: a min/max pair per channel instead of the channels mixed to one.
    ///   - range: the part of the audio to measure; nil for all of it.
    ///   - overwrite: replace existing files.
    ///   - progress: called with fractions of the audio measured, from 0 to 1.
    /// - Returns: the frames measured.
    @discardableResult
    public static func write(_ input: URL, to outputs: [Output], bits: Int = 16, splitChannels: Bool = false,
                             range: TimeRange? = nil, overwrite: Bool = false, progress: ProgressHandler? = nil) async throws -> Int64 {
        try await BlockingWork.run { flag in
            try write(input, to: outputs, bits: bits, splitChannels: splitChannels, range: range, overwrite: overwrite,
                      cancellation: flag, progress: progress).frames
        }
    }

    /// The blocking form of ``write(_:to:bits:splitChannels:range:overwrite:progress:)``, on
    /// `threads` threads, stopped by `cancellation`, saying each file's pixels.
    /// - Parameters:
    ///   - input: the audio file.
    ///   - outputs: the files, `.dat` or `.json`, each at its zoom.
    ///   - bits: 8 or 16 bits a value.
    ///   - splitChannels: a min/max pair per channel instead of the channels mixed to one.
    ///   - range: the part of the audio to measure; nil for all of it.
    ///   - overwrite: replace existing files.
    ///   - threads: threads the input is decoded on, segment by segment (1: one continuous
    ///     decode); the files are the same.
    ///   - cancellation: stops the work (and removes the partial files) when set.
    ///   - progress: called with fractions of the audio measured, from 0 to 1.
    ///   - facts: what an earlier open of `input` learnt (its length, its seek index): the
    ///     file is then not read for them again (a server drawing a long file in parts).
    /// - Returns: the frames measured and each file's pixels.
    @discardableResult
    package static func write(_ input: URL, to outputs: [Output], bits: Int = 16, splitChannels: Bool = false,
                             range: TimeRange? = nil, overwrite: Bool = false, threads: Int = ConversionOptions.availableCores,
                             cancellation: CancellationFlag? = nil, progress: ProgressHandler? = nil,
                             facts: StreamFacts? = nil) throws -> Written {
        guard bitDepths.contains(bits) else {
            throw ReverseAudioError.setting(.outOfRange(.waveformZoom, value: "\(bits) bits", allowed: "8 or 16 bits"))
        }
        let formats = try outputs.map { output in
            guard let format = Format(url: output.url) else {
                throw ReverseAudioError.output(.unknownOutputFormat(path: output.url.displayPath, extension: output.url.pathExtension,
                                                            known: Format.allCases.map(\.rawValue)))
            }
            return format
        }
        let chain = try AudioChain(url: input, recipe: ChainRecipe(range: range, sampleFormat: .s16),
                                   cancellation: cancellation ?? CancellationFlag(), facts: facts)
        let file = chain.file
        let source = chain.source
        let rate = source.format.sampleRate
        let sizes = try outputs.map { output in
            let size = output.zoom.samplesPerPixel(atRate: rate)
            // Known only now: the rate is the file's.
            guard size >= 2 else {
                throw ReverseAudioError.setting(.zoomFinerThanSamples(path: file.name, samplesPerPixel: size, sampleRate: rate))
            }
            guard size <= Int(Int32.max) else {
                throw ReverseAudioError.setting(.outOfRange(.waveformZoom, value: "\(size) samples per pixel",
                                                          allowed: "at most \(Int32.max) samples per pixel"))
            }
            return size
        }
        let sink = ZoomLevelSink(format: source.format, samplesPerPixel: sizes, splitChannels: splitChannels)
        let channels = splitChannels ? source.format.channelCount : 1
        var files: [WaveformDataFile] = []
        defer { for file in files where !file.destination.isCommitted { file.destination.discard() } }
        for (index, output) in outputs.enumerated() {
            let destination = try OutputFile(url: output.url, overwrite: overwrite, inputs: [input])
            let file = try WaveformDataFile(destination: destination, format: formats[index], bits: bits, sampleRate: rate,
                                            samplesPerPixel: sizes[index], channels: channels)
            sink.level(sizes[index])?.add(file)
            files.append(file)
        }
        let scheduler = Scheduler(threads: threads, progress: progress, cancellation: cancellation)
        let measured = try scheduler.transfer(chain.job(threads: threads, scheduler: scheduler).input, reversed: false, into: sink).frames
        for file in files { try file.finish() }
        var written = Written(frames: measured, sampleRate: rate, channels: channels,
                              levels: sizes.map { size in (size, sink.level(size)?.pixels ?? 0) })
        written.warnings = chain.warnings
        return written
    }
}
