import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Pieces of audio put end to end into one file: parts of files, forwards or reversed, and
/// silence. `trim`, `join` and `compose` are all compositions.
///
/// ```swift
/// let result = try Composition(pieces: [
///     .file(URL(fileURLWithPath: "take.wav"), range: try TimeRange(start: .seconds(1), end: .seconds(3))),
///     .silence(.seconds(0.5)),
///     .file(URL(fileURLWithPath: "take.wav"), reversed: true),
/// ]).write(to: URL(fileURLWithPath: "out.wav"))   // async; write(to:cancellation:) blocks
/// ```
///
/// The output takes the first file's format: its sample format and rate, its layout, and, when
/// the output's extension is the first file's (or ``outputFormat`` is nil and the names agree),
/// its container and codec. Lossless inputs are copied sample for sample. A single cut of an MP3
/// or of AAC in MP4 is copied packet for packet, without re-encoding, behind a LAME tag or an MP4
/// edit list that states it exactly (and kept only when a decode reads it back so); any other
/// lossy piece is decoded and encoded again, once for the whole output, with the same codec and
/// bit rate (the result says so: generation loss). ``Result/paths`` says which way each piece
/// went. Inputs of another rate or channel layout are an error unless ``convertsFormats``.
public struct Composition: Sendable {
    /// One piece of the output (``CompositionPiece``).
    public typealias Piece = CompositionPiece

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
        /// How each piece got there, in order: it starts with "copied" (samples as they are, or a
        /// lossy input's packets byte for byte), "re-encoded: generation loss", "encoded" (a
        /// lossless input into a lossy codec), "decoded" (a lossy input into a lossless file),
        /// "converted" (resampled or remixed) or "silence".
        public let paths: [String]
        /// Problems that did not stop the work.
        public let warnings: [ReverseAudioWarning]
    }

    /// Writes the composition to `output` on a thread of its own, publishing it only when
    /// complete; cancelling the task stops the work and removes the partial output.
    public func write(to output: URL) async throws -> Result {
        let composition = self
        return try await BlockingWork.run { flag in try composition.write(to: output, cancellation: flag) }
    }

    /// The blocking form of ``write(to:)``: runs on the calling thread.
    /// - Parameters:
    ///   - output: the file to write.
    ///   - cancellation: stops the work (and removes the partial output) when set.
    public func write(to output: URL, cancellation: CancellationFlag) throws -> Result {
        let files = pieces.compactMap { piece -> URL? in
            if case .file(let url, _, _) = piece { return url }
            return nil
        }
        guard let first = files.first else {
            throw ReverseAudioError.nothingToCompose(path: output.displayPath)
        }
        _ = try OutputFile(url: output, overwrite: overwrite, inputs: files)
        let reference = try AudioFileSource(url: first, cancellation: cancellation)
        let sameExtension = output.pathExtension.lowercased() == first.pathExtension.lowercased()
        let chosen = try outputFormat ?? OutputFormat.same(as: reference, for: output, sameExtension: sameExtension)
        let lossyOutput = !(chosen.codec?.isLossless ?? !reference.traits.isLossy)
        var notCopied: String?
        if lossyOutput && reference.traits.isLossy {
            switch try packetCopy(reference, format: chosen, to: output, cancellation: cancellation) {
            case .copied(let result):
                // The copy decodes nothing of the input; what resolving its length found still counts.
                return Result(output: result.output, format: result.format, outputFormat: result.outputFormat, frames: result.frames,
                              paths: result.paths, warnings: reference.warnings + result.warnings)
            case .notCopied(let reason): notCopied = reason
            }
        }
        let format = reference.format
        var sources: [any PCMSource] = []
        var paths: [String] = []
        var reencoded: [String] = []
        var lossyInputs: Set<String> = []
        for piece in pieces {
            switch piece {
            case .silence(let length):
                sources.append(SilenceSource(frames: length.frame(atRate: format.sampleRate), format: format))
                paths.append("silence")
            case .file(let url, let range, let reversed):
                let file = url == first && sources.isEmpty ? reference : try AudioFileSource(url: url, cancellation: cancellation)
                let (source, converted) = try self.source(file, range: range, matching: format)
                sources.append(reversed ? ReversedSource(source, cancellation: cancellation) : source)
                let path: String
                switch (file.traits.isLossy, lossyOutput) {
                case (true, true):
                    path = "re-encoded: generation loss"
                    reencoded.append(file.traits.name)
                case (false, true): path = "encoded (\(chosen.resolvedCodec(inputIsLossless: !reference.traits.isLossy).rawValue) is lossy)"
                case (true, false): path = "decoded (a lossy \(file.traits.name) input, stored losslessly)"
                case (false, false): path = converted ? "converted (resampled or remixed)" : "copied (samples as they are)"
                }
                if file.traits.isLossy { lossyInputs.insert(file.name) }
                paths.append(path + (reversed ? ", reversed" : ""))
            }
        }
        let writer = try AudioFileWriter(url: output, format: format, outputFormat: chosen, input: reference.writerInput,
                                         overwrite: overwrite, inputs: files, expectedFrames: nil)
        let whole = try ConcatenatedSource(sources)
        let frames = try transfer(whole, to: writer, cancellation: cancellation)
        var warnings = whole.warnings
        if !reencoded.isEmpty {
            warnings.append(ReverseAudioWarning(.reencoded(codecs: Set(reencoded).sorted(), outputCodec: writer.codec.rawValue,
                                                           reason: notCopied), subject: lossyInputs.sorted().joined(separator: ", ")))
        }
        let written = (try? OutputFormat(container: chosen.container, codec: writer.codec, bitRate: chosen.bitRate)) ?? chosen
        return Result(output: output, format: format, outputFormat: written, frames: frames, paths: paths, warnings: warnings)
    }

    /// `file`'s `range` in the composition's `format`, and whether its rate or channels changed.
    private func source(_ file: AudioFileSource, range: TimeRange?, matching format: PCMFormat) throws -> (any PCMSource, Bool) {
        let own = file.format
        let sameRate = own.sampleRate == format.sampleRate
        let sameChannels = own.channelCount == format.channelCount
        if !convertsFormats && !(sameRate && sameChannels) {
            throw ReverseAudioError.formatMismatch(path: file.name, sampleRate: own.sampleRate, channels: own.channelCount,
                                                   expectedSampleRate: format.sampleRate, expectedChannels: format.channelCount)
        }
        let frames = try range.map { try $0.frames(atRate: own.sampleRate, path: file.name) }
        let mixes = !sameChannels && format.channelCount == 1
        var source: any PCMSource = file
        if !sameRate {
            // A range counts the file's own frames: it is cut before the rate changes.
            if let frames { source = RangeSource(source, frames: frames) }
            source = try SampleConverter(source, sampleFormat: format.sampleFormat, sampleRate: format.sampleRate, mixingToMono: mixes)
        } else {
            if own.sampleFormat != format.sampleFormat || mixes {
                source = try SampleConverter(source, sampleFormat: format.sampleFormat, mixingToMono: mixes)
            }
            if let frames { source = RangeSource(source, frames: frames) }
        }
        guard source.format.channelCount == format.channelCount else {
            throw ReverseAudioError.formatMismatch(path: file.name, sampleRate: own.sampleRate, channels: own.channelCount,
                                                   expectedSampleRate: format.sampleRate, expectedChannels: format.channelCount)
        }
        return (source, !(sameRate && sameChannels))
    }

    /// What became of the attempt to copy a lossy input's packets.
    private enum PacketCopy {
        /// Written without re-encoding.
        case copied(Result)
        /// Why the pieces are encoded again instead.
        case notCopied(String)
    }

    /// A single cut of an MP3 into an MP3, or of AAC in MP4 into an MP4, copied packet for
    /// packet when the container can state the cut exactly (LAME tag, edit list).
    private func packetCopy(_ reference: AudioFileSource, format: OutputFormat, to output: URL,
                            cancellation: CancellationFlag) throws -> PacketCopy {
        let codec = reference.traits.name
        let sameCodec = reference.outputCodec != nil && reference.outputCodec == format.codec
        if reencodes { return .notCopied("--reencode asks for it") }
        if !sameCodec { return .notCopied("converted from \(codec) to \(format.codec?.rawValue ?? "another codec")") }
        let fileCount = pieces.filter { if case .file = $0 { return true } else { return false } }.count
        if fileCount > 1 {
            return .notCopied("a join is encoded once: an MP3's LAME tag and an MP4's edit state one cut, not the seams between pieces")
        }
        if pieces.count > 1 { return .notCopied("silence beside a copied cut cannot be stated without encoding it") }
        guard case .file(let url, let range, let reversed) = pieces[0] else { return .notCopied("nothing to copy") }
        if reversed { return .notCopied("a reversed piece is new audio") }
        let path = url.displayPath
        let rate = reference.format.sampleRate
        let pcm = reference.format
        switch format.container {
        case .mp3:
            guard reference.traits.cutMethod == .mp3Frames, AudioInput.isSeekableFile(url) else {
                return .notCopied("only a seekable MP3 file's frames can be copied")
            }
            // A cut that names its end needs no length: the copy reads the frames up to it and says
            // how long the file is if it ends first. Only a cut to the end counts every frame.
            var frames = try range?.frames(atRate: rate, path: path) ?? 0..<Int64.max
            if frames.upperBound == .max {
                guard let length = try reference.resolveLength().frames else {
                    return .notCopied("its length cannot be counted without decoding")
                }
                frames = try frames.within(length: length, sampleRate: rate, path: path)
            }
            guard !frames.isEmpty,
                  let written = try PacketCopyCut.cut(url, range: frames, to: output, overwrite: overwrite, cancellation: cancellation)
            else { return .notCopied("the LAME tag cannot state this cut (its 12-bit delay field holds at most 4095 samples of pre-roll and offset)") }
            return .copied(Result(output: output, format: pcm, outputFormat: format, frames: written,
                                  paths: ["copied (MP3 frames byte for byte; the LAME tag states the cut)"], warnings: []))
        case .m4a:
            guard EditListCut.canCut(reference.openedInput) else {
                return .notCopied("only AAC in a seekable MP4 file, timed in samples, can be copied")
            }
            // A cut that names its end needs no length: the copy finds a range past the end.
            var frames = try range?.frames(atRate: rate, path: path) ?? 0..<Int64.max
            if frames.upperBound == .max {
                guard let length = try reference.resolveLength().frames else {
                    return .notCopied("its length cannot be known without decoding")
                }
                frames = try frames.within(length: length, sampleRate: rate, path: path)
            }
            let written: EditListCut.Written
            switch try EditListCut.cut(url, range: frames, to: output, overwrite: overwrite, cancellation: cancellation) {
            case .written(let result): written = result
            case .refused(let reason): return .notCopied(reason)
            }
            return .copied(Result(output: output, format: pcm, outputFormat: format, frames: written.frames,
                                  paths: ["copied (\(written.packets) AAC packets byte for byte; the MP4 edit list states the cut)"],
                                  warnings: []))
        case .aac:
            return .notCopied("an ADTS .aac file cannot state where a cut starts and ends")
        default:
            return .notCopied("the \(format.container.rawValue) container cannot hold \(codec) packets")
        }
    }

}

extension OutputFormat {
    /// The input's own container and codec when the output keeps its extension; otherwise the
    /// format the output's extension names.
    static func same(as source: AudioFileSource, for output: URL, sameExtension: Bool) throws -> OutputFormat {
        guard sameExtension else { return try OutputFormat.forFile(output) }
        return try OutputFormat.forFile(output, codec: source.outputCodec)
    }
}
