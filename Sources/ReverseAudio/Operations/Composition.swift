import Foundation

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
        public let warnings: [String]
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
            throw ReverseAudioError.invalidOption("\(output.displayPath): a composition needs at least one file to take its format from")
        }
        _ = try OutputFile(url: output, overwrite: overwrite, inputs: files)
        let reference = try AudioSource(url: first, isCancelled: cancellation.check)
        let referenceDecoder = try PCMDecoder(source: reference, channels: .all, sampleFormat: nil, isCancelled: cancellation.check)
        let sameExtension = output.pathExtension.lowercased() == first.pathExtension.lowercased()
        let chosen = try outputFormat ?? OutputFormat.same(as: reference, for: output, sameExtension: sameExtension)
        let lossyOutput = !(chosen.codec?.isLossless ?? !reference.parameters.isLossy)
        var notCopied: String?
        if lossyOutput && reference.parameters.isLossy {
            switch try packetCopy(reference, format: chosen, to: output, cancellation: cancellation) {
            case .copied(let result): return result
            case .notCopied(let reason): notCopied = reason
            }
        }
        let format = referenceDecoder.format
        let source = AudioFileWriter.SourceDescription(codecName: reference.parameters.codecName, isLossless: !reference.parameters.isLossy,
                                                       bitRate: reference.parameters.bitRate ?? reference.demuxer.bitRate,
                                                       tags: reference.tags)
        let writer = try AudioFileWriter(url: output, format: format, outputFormat: chosen,
                                         channelLayout: referenceDecoder.outputChannelLayout, source: source,
                                         overwrite: overwrite, inputs: files, expectedFrames: nil)
        var frames: Int64 = 0
        var paths: [String] = []
        var warnings: [String] = []
        var reencoded: [String] = []
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
                    let written = try copy(decoder.decoder, reversed: reversed, into: writer, cancellation: cancellation)
                    frames += written
                    warnings += decoder.decoder.warnings
                    let path: String
                    switch (decoder.isLossy, lossyOutput) {
                    case (true, true):
                        path = "re-encoded: generation loss"
                        reencoded.append(decoder.codecName)
                    case (false, true): path = "encoded (\(writer.codec.rawValue) is lossy)"
                    case (true, false): path = "decoded (a lossy \(decoder.codecName) input, stored losslessly)"
                    case (false, false): path = decoder.converted ? "converted (resampled or remixed)" : "copied (samples as they are)"
                    }
                    paths.append(path + (reversed ? ", reversed" : ""))
                }
            }
            try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
        if !reencoded.isEmpty {
            let codecs = Set(reencoded).sorted().joined(separator: ", ")
            let why = notCopied.map { ": \($0)" } ?? ""
            warnings.append("re-encoded: generation loss (\(codecs) decoded and encoded again as \(writer.codec.rawValue)\(why))")
        }
        let written = (try? OutputFormat(container: chosen.container, codec: writer.codec, bitRate: chosen.bitRate)) ?? chosen
        return Result(output: output, format: format, outputFormat: written, frames: frames, paths: paths, warnings: warnings)
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
    private func packetCopy(_ reference: AudioSource, format: OutputFormat, to output: URL,
                            cancellation: CancellationFlag) throws -> PacketCopy {
        let codec = reference.parameters.codecName
        let sameCodec = (codec == "mp3" && format.codec == .mp3) || (codec == "aac" && format.codec == .aac)
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
        let rate = reference.parameters.sampleRate
        let pcm = PCMFormat(sampleFormat: .f32, sampleRate: rate, channelCount: reference.parameters.channelCount,
                            channelLayoutName: reference.parameters.channelLayoutName)
        switch format.container {
        case .mp3:
            guard reference.demuxer.formatName == "mp3", reference.isSeekable else {
                return .notCopied("only a seekable MP3 file's frames can be copied")
            }
            // A cut that names its end needs no length: the copy reads the frames up to it and says
            // how long the file is if it ends first. Only a cut to the end counts every frame.
            var frames = try range?.frames(atRate: rate, path: path) ?? 0..<Int64.max
            if frames.upperBound == .max {
                let source = try AudioSource(url: url, isCancelled: cancellation.check)
                guard let length = try FrameCounter.count(source, isCancelled: cancellation.check).0.prediction?.frames else {
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
            guard EditListCut.canCut(reference), let length = try EditListCut.decodedLength(of: reference) else {
                return .notCopied("only AAC in a seekable MP4 file, timed in samples, can be copied")
            }
            let frames = try (range?.frames(atRate: rate, path: path) ?? 0..<Int64.max).within(length: length, sampleRate: rate, path: path)
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

    /// A decoder of `url`'s range in the composition's format, and what it is.
    private func decoder(for url: URL, range: TimeRange?, matching format: PCMFormat, cancellation: CancellationFlag) throws
        -> (decoder: PCMDecoder, isLossy: Bool, codecName: String, converted: Bool) {
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
        return (decoder, parameters.isLossy, parameters.codecName, !(sameRate && sameChannels))
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
