import Foundation

/// Pieces of audio put end to end into one file: parts of files, forwards or reversed, and
/// silence. `trim`, `join` and `compose` are all compositions.
///
/// ```swift
/// let result = try Composition(pieces: [
///     .file(URL(fileURLWithPath: "take.wav"), range: try TimeRange(start: .seconds(1), end: .seconds(3))),
///     .silence(.seconds(0.5)),
///     .file(URL(fileURLWithPath: "take.wav"), reversed: true),
/// ]).write(to: URL(fileURLWithPath: "out.wav"))
/// ```
///
/// The output takes the first file's format: its sample format and rate, its layout, and, when
/// the output's extension is the first file's (or ``outputFormat`` is nil and the names agree),
/// its container and codec. Lossless inputs are copied sample for sample; a lossy input is
/// decoded and encoded again with the same codec and bit rate (the result says so: generation
/// loss). Inputs of another rate or channel layout are an error unless ``convertsFormats``.
public struct Composition: Sendable {
    /// One piece of the output.
    public enum Piece: Sendable, Equatable {
        /// A file, or part of it, forwards or reversed.
        case file(URL, range: TimeRange? = nil, reversed: Bool = false)
        /// Digital silence in the output's format, exact to the frame.
        case silence(TimePosition)
    }

    /// The pieces, in output order.
    public var pieces: [Piece]
    /// The container and codec; nil for the first file's (or the output extension's, when it differs).
    public var outputFormat: OutputFormat?
    /// Resample and remix inputs whose rate or layout differs from the first file's (else an error).
    public var convertsFormats: Bool
    /// Replace an existing output (never an input).
    public var overwrite: Bool
    /// Decode and encode a lossy input even where its packets could be copied.
    public var reencodes: Bool

    /// A composition of `pieces`.
    public init(pieces: [Piece], outputFormat: OutputFormat? = nil, convertsFormats: Bool = false, overwrite: Bool = false,
                reencodes: Bool = false) {
        self.pieces = pieces
        self.outputFormat = outputFormat
        self.convertsFormats = convertsFormats
        self.overwrite = overwrite
        self.reencodes = reencodes
    }

    /// What a composition wrote.
    public struct Result: Sendable {
        /// The file written.
        public let output: URL
        /// The PCM written (before encoding).
        public let format: PCMFormat
        /// The container and codec written.
        public let outputFormat: OutputFormat
        /// Frames written.
        public let frames: Int64
        /// How each piece got there, in order: "copied", "re-encoded: generation loss", "silence".
        public let paths: [String]
        /// Problems that did not stop the work.
        public let warnings: [String]
    }

    /// Writes the composition to `output`, publishing it only when complete.
    /// - Parameters:
    ///   - output: the file to write.
    ///   - cancellation: stops the work (and removes the partial output) when set.
    public func write(to output: URL, cancellation: CancellationFlag = CancellationFlag()) throws -> Result {
        let files = pieces.compactMap { piece -> URL? in
            if case .file(let url, _, _) = piece { return url }
            return nil
        }
        guard let first = files.first else {
            throw ReverseAudioError.invalidOption("\(output.displayPath): a composition needs at least one file to take its format from")
        }
        _ = try OutputFile(url: output, overwrite: overwrite, inputs: files)
        let reference = try AudioSource(url: first, isCancelled: cancellation.check)
        let referenceDecoder = try PCMDecoder(source: reference, channels: .all, sampleFormat: nil, isCancelled: cancellation.check)
        let sameExtension = output.pathExtension.lowercased() == first.pathExtension.lowercased()
        let chosen = try outputFormat ?? OutputFormat.same(as: reference, for: output, sameExtension: sameExtension)
        if let copied = try packetCopy(reference, format: chosen, to: output, cancellation: cancellation) {
            return copied
        }
        let format = referenceDecoder.format
        let lossy = reference.parameters.isLossy || !(chosen.codec?.isLossless ?? false)
        let source = AudioFileWriter.SourceDescription(codecName: reference.parameters.codecName, isLossless: !reference.parameters.isLossy,
                                                       bitRate: reference.parameters.bitRate ?? reference.demuxer.bitRate,
                                                       tags: reference.tags)
        let writer = try AudioFileWriter(url: output, format: format, outputFormat: chosen,
                                         channelLayout: referenceDecoder.outputChannelLayout, source: source,
                                         overwrite: overwrite, inputs: files, expectedFrames: nil)
        var frames: Int64 = 0
        var paths: [String] = []
        var warnings: [String] = []
        do {
            for piece in pieces {
                if cancellation.isCancelled { throw CancellationError() }
                switch piece {
                case .silence(let length):
                    let count = length.frame(atRate: format.sampleRate)
                    try writeSilence(count, format: format, into: writer)
                    frames += count
                    paths.append("silence")
                case .file(let url, let range, let reversed):
                    let decoder = try decoder(for: url, range: range, matching: format, cancellation: cancellation)
                    let written = try copy(decoder, reversed: reversed, into: writer, cancellation: cancellation)
                    frames += written
                    warnings += decoder.warnings
                    paths.append(lossy ? "re-encoded: generation loss" : "copied")
                }
            }
            try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
        if lossy { warnings.append("re-encoded: generation loss (\(writer.codec.rawValue) decoded and encoded again)") }
        return Result(output: output, format: format, outputFormat: chosen, frames: frames, paths: paths, warnings: warnings)
    }

    /// A single MP3 cut into an MP3: its frames copied, not re-encoded, when the LAME tag can
    /// state the cut exactly; nil otherwise.
    private func packetCopy(_ reference: AudioSource, format: OutputFormat, to output: URL,
                            cancellation: CancellationFlag) throws -> Result? {
        guard !reencodes, pieces.count == 1, case .file(let url, let range, false) = pieces[0],
              format.container == .mp3, reference.parameters.codecName == "mp3", reference.isSeekable else { return nil }
        let (count, _) = try FrameCounter.count(try AudioSource(url: url, isCancelled: cancellation.check), isCancelled: cancellation.check)
        let length = count.prediction?.frames
        var frames = try range?.frames(atRate: reference.parameters.sampleRate, path: url.displayPath) ?? 0..<(length ?? 0)
        // A range past the end is for the decode to report: no copy then.
        guard let length, frames.upperBound <= length || frames.upperBound == .max else { return nil }
        frames = frames.lowerBound..<min(frames.upperBound, length)
        guard !frames.isEmpty,
              let written = try PacketCopyCut.cut(url, range: frames, to: output, overwrite: overwrite, cancellation: cancellation)
        else { return nil }
        let pcm = PCMFormat(sampleFormat: .f32, sampleRate: reference.parameters.sampleRate,
                            channelCount: reference.parameters.channelCount, channelLayoutName: reference.parameters.channelLayoutName)
        return Result(output: output, format: pcm, outputFormat: format, frames: written,
                      paths: ["packets copied (no re-encoding); LAME tag states the cut"], warnings: [])
    }

    /// A decoder of `url`'s range in the composition's format.
    private func decoder(for url: URL, range: TimeRange?, matching format: PCMFormat,
                         cancellation: CancellationFlag) throws -> PCMDecoder {
        let source = try AudioSource(url: url, isCancelled: cancellation.check)
        // No count first: the decode finds out whether a range lies within the file.
        let parameters = source.parameters
        let sameRate = parameters.sampleRate == format.sampleRate
        let sameChannels = parameters.channelCount == format.channelCount
        if !convertsFormats && !(sameRate && sameChannels) {
            throw ReverseAudioError.invalidOption(
                "\(url.displayPath): \(parameters.sampleRate) Hz, \(parameters.channelCount) channels, unlike the first file's \(format.sampleRate) Hz, \(format.channelCount) channels; add --convert to resample")
        }
        let decoder = try PCMDecoder(source: source, channels: sameChannels ? .all : (format.channelCount == 1 ? .mix : .all),
                                     sampleFormat: format.sampleFormat, sampleRate: sameRate ? nil : format.sampleRate,
                                     isCancelled: cancellation.check)
        if let range {
            try decoder.limit(to: try range.frames(atRate: parameters.sampleRate, path: url.displayPath), requiringWholeRange: true)
        }
        return decoder
    }

    /// Copies what `decoder` gives (reversed, through a temporary file, if asked) into `writer`.
    private func copy(_ decoder: PCMDecoder, reversed: Bool, into writer: AudioFileWriter,
                      cancellation: CancellationFlag) throws -> Int64 {
        if reversed {
            return try SpilledReversal(blockFrames: 1 << 16, isCancelled: cancellation.check)
                .run(decoder, in: FileManager.default.temporaryDirectory, progress: nil) { bytes, count in
                    try writer.append(bytes, frames: count)
                }.frames
        }
        var frames: Int64 = 0
        while try decoder.readChunk({ bytes, count in
            try writer.append(bytes, frames: count)
            frames += Int64(count)
        }) {}
        return frames
    }

    /// `count` frames of digital silence: zero, or 128 for unsigned 8-bit.
    private func writeSilence(_ count: Int64, format: PCMFormat, into writer: AudioFileWriter) throws {
        let chunk = 4096
        let zero: UInt8 = format.sampleFormat == .u8 ? 0x80 : 0
        let bytes = [UInt8](repeating: zero, count: chunk * format.bytesPerFrame)
        var left = count
        while left > 0 {
            let frames = Int(min(Int64(chunk), left))
            try bytes.withUnsafeBytes { try writer.append(UnsafeRawBufferPointer(rebasing: $0[0..<(frames * format.bytesPerFrame)]), frames: frames) }
            left -= Int64(frames)
        }
    }
}

extension OutputFormat {
    /// The input's own container and codec when the output keeps its extension; otherwise the
    /// format the output's extension names.
    static func same(as source: AudioSource, for output: URL, sameExtension: Bool) throws -> OutputFormat {
        guard sameExtension else { return try OutputFormat.forFile(output) }
        let codec: Codec?
        switch source.parameters.codecName {
        case "flac": codec = .flac
        case "alac": codec = .alac
        case "aac": codec = .aac
        case "mp3": codec = .mp3
        default: codec = source.parameters.isPCM ? .pcm : nil
        }
        return try OutputFormat.forFile(output, codec: codec)
    }
}
