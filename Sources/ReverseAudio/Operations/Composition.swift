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
/// The output takes the first file's rate and layout, the widest sample format of the files
/// (24-bit beside 16-bit is 24-bit, float beside integer is float: nothing is narrowed) unless
/// ``sampleFormat`` names one, and, when the output's extension is the first file's (or
/// ``outputFormat`` is nil and the names agree), the first file's container and codec. Lossless
/// inputs are copied sample for sample. A single cut of an MP3 or of AAC in MP4 is copied packet
/// for packet, without re-encoding, behind a LAME tag or an MP4 edit list (and Apple's
/// `iTunSMPB`) that states it exactly (and kept only when a decode reads it back so); any other
/// lossy piece is decoded and encoded again, once for the whole output, with the same codec and
/// bit rate (the result says so: generation loss). ``Result/paths`` says which way each piece
/// went. Inputs of another rate or channel layout are an error unless ``convertsFormats``.
public struct Composition: Sendable {
    /// One piece of the output (``CompositionPiece``).
    package typealias Piece = CompositionPiece

    /// The pieces, in output order.
    public var pieces: [CompositionPiece]
    /// The container and codec; nil for the first file's (or the output extension's, when it differs).
    public var outputFormat: OutputFormat?
    /// Resample and remix inputs whose rate or layout differs from the first file's (else an error).
    public var convertsFormats: Bool
    /// Replace an existing output (never an input).
    public var overwrite: Bool
    /// Decode and encode a lossy input even where its packets could be copied.
    package var reencodes: Bool
    /// The sample format written; nil for the widest of the files'.
    public var sampleFormat: SampleFormat?
    /// Told the fraction written as the work goes on (from the working thread); 1 at the end.
    public var progress: ProgressHandler?
    /// Effects on the whole output, in order (a fade-in at its start); each piece may have its own.
    public var effects: [any AudioEffect] = []
    /// Tags written in place of the first file's tags of the same names (a split piece's title
    /// and track number); the first file's others are kept.
    package var tags: [(key: String, value: String)] = []
    /// An MP3 file's packet index shared with other cuts of it (a split's pieces).
    package var sharedCutIndex: SharedPacketIndex?
    /// One chapter per file piece, from where it starts to where it ends, titled by its title tag
    /// (else its file name); silence between belongs to none (in MP4, whose chapter track has no
    /// gaps, a chapter lasts until the next starts). MP4 and MP3 (ID3v2 `CHAP`) hold them.
    public var chaptersPerPiece = false


    /// A composition of `pieces`.
    public init(pieces: [CompositionPiece], outputFormat: OutputFormat? = nil, convertsFormats: Bool = false, overwrite: Bool = false,
                reencodes: Bool = false, sampleFormat: SampleFormat? = nil) {
        self.pieces = pieces
        self.outputFormat = outputFormat
        self.convertsFormats = convertsFormats
        self.overwrite = overwrite
        self.reencodes = reencodes
        self.sampleFormat = sampleFormat
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
        /// "converted" (another sample format, resampled or remixed: each change named) or
        /// "silence".
        public let paths: [String]
        /// Problems that did not stop the work.
        public let warnings: [ReverseAudioWarning]
        /// For a copied cut with fades: the frames (packets) encoded again under the fade-in and
        /// the fade-out, and the share of the file's audio bytes copied from the input.
        package var fadedCopy: (fadeIn: Int, fadeOut: Int, copiedShare: Double)?
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
    package func write(to output: URL, cancellation: CancellationFlag) throws -> Result {
        let files = pieces.compactMap { piece -> URL? in
            if case .file(let url, _, _, _) = piece { return url }
            return nil
        }
        guard let first = files.first else {
            throw ReverseAudioError.output(.nothingToCompose(path: output.displayPath))
        }
        _ = try OutputFile(url: output, overwrite: overwrite, inputs: files)
        let reference = try AudioFileSource(url: first, cancellation: cancellation)
        let sameExtension = output.pathExtension.lowercased() == first.pathExtension.lowercased()
        let chosen = try outputFormat ?? OutputFormat.same(as: reference, for: output, sameExtension: sameExtension)
        if chaptersPerPiece && !chosen.file.capabilities.contains(.chapters) {
            let holders = FileFormat.all.filter { $0.capabilities.contains(.chapters) }.flatMap(\.extensions)
            throw ReverseAudioError.output(.cannotCreateOutput(
                path: output.displayPath, reason: "\(chosen.name.uppercased()) holds no chapters FFmpeg writes (asked for one a piece): write \(holders.map { ".\($0)" }.joined(separator: ", "))"))
        }
        let outputCodec = chosen.resolvedCodec(inputIsLossless: !reference.openedInput.traits.isLossy)
        let lossyOutput = !outputCodec.isLossless
        var notCopied: String?
        if lossyOutput && reference.openedInput.traits.isLossy {
            switch try packetCopy(reference, format: chosen, to: output, cancellation: cancellation) {
            case .copied(let result):
                progress?(1)
                // The copy decodes nothing of the input; what resolving its length found still counts.
                var copied = Result(output: result.output, format: result.format, outputFormat: result.outputFormat, frames: result.frames,
                                    paths: result.paths, warnings: reference.warnings + result.warnings)
                copied.fadedCopy = result.fadedCopy
                return copied
            case .notCopied(let reason): notCopied = reason
            }
        }
        try checkSilences(rate: reference.format.sampleRate)
        let sourceOfPiece = try openPieces(first: first, reference: reference, cancellation: cancellation)
        let opened = pieces.indices.compactMap { sourceOfPiece[$0] }
        let widest = reference.format.with(sampleFormat: sampleFormat ?? Self.widest(
            lossless: opened.filter { !$0.openedInput.traits.isLossy }.map(\.format.sampleFormat),
            lossy: opened.filter(\.openedInput.traits.isLossy).map(\.format.sampleFormat), storedBy: outputCodec))
        // A codec of few rates (Opus) takes the nearest: every piece is resampled to it.
        let format = PCMFormat(sampleFormat: widest.sampleFormat, sampleRate: outputCodec.rate(for: widest.sampleRate),
                               channelCount: widest.channelCount, channelLayoutName: widest.channelLayoutName)
        var sources: [any PCMSource] = []
        // Reversed pieces are read in order through a temporary file beside nothing: one thread each.
        let scheduler = Scheduler(threads: 1, cancellation: cancellation)
        var paths: [String] = []
        var reencoded: [String] = []
        // In the order given, each once.
        var lossyInputs: [String] = []
        var conversions: [ReverseAudioWarning] = []
        for (index, piece) in pieces.enumerated() {
            switch piece {
            case .silence(let length):
                sources.append(SilenceSource(frames: length.frame(atRate: format.sampleRate), format: format))
                paths.append("silence")
            case .file(_, let range, let reversed, let effects):
                guard let file = sourceOfPiece[index] else { continue }
                let (source, changes) = try self.source(file, range: range, reversed: reversed, effects: effects, matching: format,
                                                        reference: reference.format.sampleRate, scheduler: scheduler)
                sources.append(source)
                if file.openedInput.traits.isLossy && lossyOutput { reencoded.append(file.openedInput.traits.name) }
                let path = Self.path(of: file, changes: changes, into: outputCodec)
                if file.openedInput.traits.isLossy && !lossyInputs.contains(file.name) { lossyInputs.append(file.name) }
                let audible = changes.filter { !$0.hasPrefix("sample format") }
                if !audible.isEmpty && !conversions.contains(where: { $0.subject == file.name }) {
                    conversions.append(ReverseAudioWarning(.converted(changes: audible), subject: file.name))
                }
                paths.append(path + (reversed ? ", reversed" : "") + effects.map { ", \($0)" }.joined())
            }
        }
        var whole: any PCMSource = try sources[0].followed(by: Array(sources.dropFirst()))
        if let heard = whole.length.frames {
            try Fade.checkFit(of: effects, within: heard, sampleRate: format.sampleRate, name: output.displayPath)
        }
        for effect in effects {
            whole = try effect.applied(to: whole, mirrored: false)
        }
        try checkSpace(for: sources, format: format, outputFormat: chosen, output: output)
        let pieceChapters = chaptersPerPiece ? try chapters(of: sources, files: sourceOfPiece) : nil
        // A cut of one file keeps the chapters inside it, from its start (a join's files have
        // their own timelines; silence around a cut would move them: none then).
        var chapterCut: Range<Int64>?
        if pieces.count == 1, case .file(_, let range, false, _) = pieces[0] {
            chapterCut = try range?.frames(atRate: reference.format.sampleRate, path: reference.name,
                                           length: { reference.length.frames }) ?? 0..<Int64.max
        }
        var writerInput = reference.openedInput.writerInput(overridingTags: tags, chaptersOf: chapterCut)
        if let pieceChapters { writerInput.chapters = pieceChapters }
        let writer = try AudioFileWriter(url: output, format: format, outputFormat: chosen, input: writerInput,
                                         overwrite: overwrite, inputs: files, expectedFrames: nil)
        let job = Scheduler.Input(source: whole, splitting: .single(reason: .piecesReadInOrder), name: output.displayPath)
        let frames = try Scheduler(threads: 1, progress: progress, cancellation: cancellation)
            .transfer(job, reversed: false, into: writer).frames
        let (decoded, outcome) = Self.outcome(of: output, frames: frames, format: chosen, codec: writer.codec,
                                              lossy: lossyOutput, reencoded: reencoded, from: lossyInputs, notCopied: notCopied)
        let warnings = pieces.indices.compactMap { sourceOfPiece[$0] }.flatMap(\.warnings) + conversions + outcome
        let written = (try? OutputFormat(name: chosen.name, codec: writer.codec, bitRate: chosen.bitRate)) ?? chosen
        return Result(output: output, format: format, outputFormat: written, frames: decoded, paths: paths, warnings: warnings)
    }

    /// Every piece's file, opened once each in piece order (the first file's first piece is
    /// `reference`, already open), by piece index.
    private func openPieces(first: URL, reference: AudioFileSource, cancellation: CancellationFlag) throws -> [Int: AudioFileSource] {
        var sourceOfPiece: [Int: AudioFileSource] = [:]
        for (index, piece) in pieces.enumerated() {
            guard case .file(let url, let range, _, _) = piece else { continue }
            sourceOfPiece[index] = url == first && sourceOfPiece.isEmpty
                ? reference : try AudioFileSource(url: url, cancellation: cancellation, plan: OpenPlan(
                    resolvingLength: range.map { $0.end == nil && $0.duration == nil } ?? true))
        }
        return sourceOfPiece
    }

    /// Refuses a silence longer than ``maximumSilenceSeconds`` at `rate`.
    /// - Throws: `RangeError.invalidRange(reason:)` naming the limit.
    private func checkSilences(rate: Int) throws {
        let limit = Int64(CompositionPiece.maximumSilenceSeconds) * Int64(rate)
        for case .silence(let length) in pieces where length.frame(atRate: rate) > limit {
            throw ReverseAudioError.range(.invalidRange(
                reason: "a silence of \(length) is longer than 24 hours (\(Int64(CompositionPiece.maximumSilenceSeconds)) s, "
                    + "\(limit) frames at \(rate) Hz), the longest silence a composition writes"))
        }
    }

    /// Before anything is written: when the output's size follows from its length (PCM in WAV,
    /// AIFF or CAF), the frames known now (silences, and pieces whose length the header states)
    /// must fit the container (AIFF's sizes are 32-bit) and the free space of the output's file
    /// system. Compressed outputs have no size to predict.
    /// - Throws: `RangeError.invalidRange(reason:)` past what the container holds;
    ///   `OutputError.cannotCreateOutput(path:reason:)` when the space is not there.
    private func checkSpace(for sources: [any PCMSource], format: PCMFormat, outputFormat: OutputFormat, output: URL) throws {
        // Only PCM's size follows from its length.
        guard outputFormat.resolvedCodec(inputIsLossless: true).name == "pcm" else { return }
        var frames: Int64 = 0
        for source in sources {
            guard let known = source.length.frames, known > 0 else { continue }
            frames = frames > Int64.max - known ? Int64.max : frames + known
        }
        let (bytes, overflow) = frames.multipliedReportingOverflow(by: Int64(max(format.bytesPerFrame, 1)))
        let predicted = overflow ? Int64.max : bytes
        if let most = outputFormat.file.maximumDataBytes, predicted > most {
            throw ReverseAudioError.range(.invalidRange(
                reason: "an AIFF file holds at most 4 GiB of samples (its sizes are 32-bit) and this one would take "
                    + "\(Composition.bytes(predicted)); write .wav (RF64) or .caf instead"))
        }
        guard let (target, kind) = try? OutputFile.resolve(output), kind == .missing || kind == .regular else { return }
        let folder = target.deletingLastPathComponent()
        var status = statvfs()
        guard statvfs(folder.path, &status) == 0 else { return }
        let (available, tooMany) = Int64(status.f_bavail).multipliedReportingOverflow(by: Int64(status.f_frsize))
        if !tooMany && predicted > available {
            throw ReverseAudioError.output(.cannotCreateOutput(
                path: output.displayPath,
                reason: "it would take \(Composition.bytes(predicted)) and the file system holding \(folder.displayPath) has \(Composition.bytes(available)) free"))
        }
    }

    /// "15.2 GB", "812 MB", "4.0 kB".
    static func bytes(_ count: Int64) -> String {
        let value = Double(count)
        if value >= 1e12 { return String(format: "%.1f TB", value / 1e12) }
        if value >= 1e9 { return String(format: "%.1f GB", value / 1e9) }
        if value >= 1e6 { return String(format: "%.0f MB", value / 1e6) }
        return String(format: "%.1f kB", value / 1e3)
    }

    /// The sample format that holds every one of the files' samples exactly: the widest
    /// integer format among them, or a float one when any is float (f64 when 32-bit integers
    /// or f64 samples are among them, which f32 would round). Into FLAC or ALAC, which hold
    /// integers of at most 24 bits, the float samples of lossy decodes are stored as 24-bit
    /// when no lossless file needs more.
    static func widest(lossless: [SampleFormat], lossy: [SampleFormat], storedBy codec: CodecFormat) -> SampleFormat {
        let all = lossless + lossy
        let best = widest(all)
        guard let stores = codec.stores, stores[best] == nil else { return best }
        let needed = widest(lossless)
        return needed.isFloat || needed == .s32 ? best : .s24
    }

    /// One chapter per file piece of `sources` (the pieces' chains, in order), in output frames.
    /// - Throws: ``InputError/lengthUnknown(path:reason:)`` for a piece whose length only
    ///   reading it tells.
    private func chapters(of sources: [any PCMSource], files: [Int: AudioFileSource]) throws -> [(start: Int64, end: Int64, title: String?)] {
        var result: [(start: Int64, end: Int64, title: String?)] = []
        var position: Int64 = 0
        for (index, piece) in pieces.enumerated() {
            let source = sources[index]
            guard let length = source.length.frames else {
                throw ReverseAudioError.input(.lengthUnknown(path: files[index]?.name ?? "", reason: "a chapter per piece needs each piece's length before writing"))
            }
            if case .file(let url, _, let reversed, _) = piece {
                let title = files[index]?.openedInput.tags(overriding: []).first { $0.key.lowercased() == "title" }?.value
                    ?? url.deletingPathExtension().lastPathComponent
                result.append((position, position + length, title + (reversed ? " (reversed)" : "")))
            }
            position += length
        }
        return result
    }

    /// The narrowest sample format holding every one of `formats` exactly (s16 for none).
    package static func widest(_ formats: [SampleFormat]) -> SampleFormat {
        guard let integerWidest = formats.filter({ !$0.isFloat }).max(by: { $0.validBits < $1.validBits }) ?? formats.first else {
            return .s16
        }
        guard formats.contains(where: \.isFloat) else { return integerWidest }
        return formats.contains(.f64) || formats.contains(.s32) ? .f64 : .f32
    }

    /// `file`'s `range` in the composition's `format`, forwards or reversed, and what changed on
    /// the way ("sample format s16 → s24 (exact)", "resampled 48000 → 44100 Hz", "2 channels
    /// mixed to 1").
    /// - Parameter reference: the first file's rate, which the others must have unless
    ///   ``convertsFormats`` (the output's may differ: a codec of few rates takes the nearest).
    private func source(_ file: AudioFileSource, range: TimeRange?, reversed: Bool, effects: [any AudioEffect], matching format: PCMFormat,
                        reference: Int, scheduler: Scheduler) throws -> (any PCMSource, [String]) {
        let own = file.format
        let sameRate = own.sampleRate == format.sampleRate
        let sameChannels = own.channelCount == format.channelCount
        if !convertsFormats && !(own.sampleRate == reference && sameChannels) {
            throw ReverseAudioError.input(.formatMismatch(path: file.name, sampleRate: own.sampleRate, channels: own.channelCount,
                                                   expectedSampleRate: reference, expectedChannels: format.channelCount))
        }
        let mixes = !sameChannels && format.channelCount == 1
        let recipe = ChainRecipe(range: range, sampleFormat: format.sampleFormat, sampleRate: sameRate ? nil : format.sampleRate,
                                 channels: mixes ? .mix : .all, effects: effects, reversed: reversed)
        let source = try AudioChain(file: file, recipe: recipe).reader(scheduler: scheduler)
        guard source.format.channelCount == format.channelCount else {
            throw ReverseAudioError.input(.formatMismatch(path: file.name, sampleRate: own.sampleRate, channels: own.channelCount,
                                                   expectedSampleRate: format.sampleRate, expectedChannels: format.channelCount))
        }
        var changes: [String] = []
        if own.sampleFormat != format.sampleFormat {
            let exact = Self.widest([own.sampleFormat, format.sampleFormat]) == format.sampleFormat
            changes.append("sample format \(own.sampleFormat) → \(format.sampleFormat)"
                           + (exact ? " (exact)" : sampleFormat != nil ? " (the sample format asked for)"
                                : " (the output's codec holds integers of at most 24 bits)"))
        }
        if !sameRate { changes.append("resampled \(own.sampleRate) → \(format.sampleRate) Hz") }
        if !sameChannels { changes.append(mixes ? "\(ChannelCountText.phrase(own.channelCount)) mixed to 1" : "\(ChannelCountText.phrase(own.channelCount)) remixed to \(format.channelCount)") }
        return (source, changes)
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
        let codec = reference.openedInput.traits.name
        let sameCodec = reference.openedInput.outputCodec != nil && reference.openedInput.outputCodec == format.codec
        if reencodes { return .notCopied("re-encoding was asked for") }
        if !sameCodec { return .notCopied("converted from \(codec) to \(format.codec ?? "another codec")") }
        let fileCount = pieces.filter { if case .file = $0 { return true } else { return false } }.count
        if fileCount > 1 {
            return .notCopied("a join is encoded once: an MP3's LAME tag and an MP4's edit state one cut, not the seams between pieces")
        }
        if chaptersPerPiece { return .notCopied("a chapter per piece is written with the pieces encoded") }
        if pieces.count > 1 { return .notCopied("silence beside a copied cut cannot be stated without encoding it") }
        guard case .file(let url, let range, let reversed, let effects) = pieces[0] else { return .notCopied("nothing to copy") }
        if reversed { return .notCopied("a reversed piece is new audio") }
        let path = url.displayPath
        let rate = reference.format.sampleRate
        // Fades re-encode only the frames under them; any other effect changes every sample.
        guard let fades = Self.fades(effects + self.effects, rate: rate) else { return .notCopied("effects change the samples") }
        let pcm = reference.format
        if let inexact = format.file.cutsInexactly { return .notCopied(inexact) }
        switch format.file.copiedCut {
        case .mp3Frames?:
            guard reference.openedInput.traits.cutMethod == .mp3Frames, AudioInput.isSeekableFile(url) else {
                return .notCopied("only a seekable MP3 file's frames can be copied")
            }
            // A cut that names its end needs no length: the copy reads the frames up to it and says
            // how long the file is if it ends first. Only a cut to the end counts every frame.
            var frames = try range?.frames(atRate: rate, path: path, length: { reference.length.frames }) ?? 0..<Int64.max
            if frames.upperBound == .max {
                guard let length = try reference.resolveLength().frames else {
                    return .notCopied("its length cannot be counted without decoding")
                }
                frames = try frames.within(length: length, sampleRate: rate, path: path)
            }
            guard !frames.isEmpty else { return .notCopied("the cut is empty") }
            try checkFadesFit(effects, frames: frames, rate: rate, piece: path, output: output)
            switch try PacketCopyCut.cut(url, range: frames, fades: fades, to: output, overwrite: overwrite, tags: tags,
                                         sharing: sharedCutIndex, cancellation: cancellation) {
            case .refused(let reason):
                return .notCopied(reason)
            case .written(let written):
                let (head, tail) = written.reencodedFrames
                let repair = head > 0 || tail > 0
                    ? "; \(CutFades.reencodedText(head: head, tail: tail)), \(Int((written.copiedShare * 100).rounded(.down)))% of the bytes copied"
                    : written.reservoirBytes > 0
                    ? ", behind a silent frame carrying the \(written.reservoirBytes) bytes of bit reservoir they need" : ""
                let path = "copied (MP3 frames byte for byte, \(written.copiedFrames) of them\(repair); the LAME tag states the cut)"
                var result = Result(output: output, format: pcm, outputFormat: format, frames: written.frames, paths: [path], warnings: [])
                if !fades.isEmpty { result.fadedCopy = (head, tail, written.copiedShare) }
                return .copied(result)
            }
        case .mp4EditList?:
            if let refusal = EditListCut.refusal(reference.openedInput) { return .notCopied(refusal) }
            // A cut that names its end needs no length: the copy finds a range past the end.
            var frames = try range?.frames(atRate: rate, path: path, length: { reference.length.frames }) ?? 0..<Int64.max
            if frames.upperBound == .max {
                guard let length = try reference.resolveLength().frames else {
                    return .notCopied("its length cannot be known without decoding")
                }
                frames = try frames.within(length: length, sampleRate: rate, path: path)
            }
            try checkFadesFit(effects, frames: frames, rate: rate, piece: path, output: output)
            let written: EditListCut.Written
            switch try EditListCut.cut(url, range: frames, fades: fades, to: output, overwrite: overwrite, tags: tags,
                                       cancellation: cancellation) {
            case .written(let result): written = result
            case .refused(let reason): return .notCopied(reason)
            }
            let (head, tail) = written.reencodedPackets
            let faded = head > 0 || tail > 0
                ? "; " + CutFades.reencodedText(head: head, tail: tail, unit: "packets")
                    + ", \(Int((written.copiedShare * 100).rounded(.down)))% of the bytes copied" : ""
            var result = Result(output: output, format: pcm, outputFormat: format, frames: written.frames,
                                paths: ["copied (\(written.packets) AAC packets byte for byte\(faded); the MP4 edit list states the cut)"],
                                warnings: [])
            if !fades.isEmpty { result.fadedCopy = (head, tail, written.copiedShare) }
            return .copied(result)
        case nil:
            return .notCopied("the \(format.name) container cannot hold \(codec) packets")
        }
    }

}

extension Composition {
    /// Refuses the fades of a copied cut that do not fit in it, as the decoding path does: the
    /// piece's own (named by its file) and the output's (named by the output), each alone.
    private func checkFadesFit(_ pieceEffects: [any AudioEffect], frames: Range<Int64>, rate: Int, piece: String,
                               output: URL) throws {
        // An open end is the file's end, found by reading: the copy says so if the range passes it.
        guard frames.upperBound != .max else { return }
        try Fade.checkFit(of: pieceEffects, within: Int64(frames.count), sampleRate: rate, name: piece)
        try Fade.checkFit(of: effects, within: Int64(frames.count), sampleRate: rate, name: output.displayPath)
    }

    /// `effects` as the fades of a copied cut, when they are only that: at most one fade-in and
    /// one fade-out (nil for any other effect).
    static func fades(_ effects: [any AudioEffect], rate: Int) -> CutFades? {
        var fades = CutFades.none
        for effect in effects {
            guard let fade = effect as? Fade else { return nil }
            let frames = fade.length.frame(atRate: rate)
            switch fade.end {
            case .in:
                guard fades.fadeIn == nil else { return nil }
                fades = CutFades(fadeIn: (frames, fade.shape), fadeOut: fades.fadeOut)
            case .out:
                guard fades.fadeOut == nil else { return nil }
                fades = CutFades(fadeIn: fades.fadeIn, fadeOut: (frames, fade.shape))
            }
        }
        return fades
    }
}

extension OutputFormat {
    /// The input's own container and codec when the output keeps its extension; otherwise the
    /// format the output's extension names. A container holding a codec we cannot write into it
    /// (MP3 inside a WAV file) gets its own codec: the decoded samples, stored losslessly.
    static func same(as source: AudioFileSource, for output: URL, sameExtension: Bool) throws -> OutputFormat {
        guard sameExtension else { return try OutputFormat.forFile(output) }
        if let codec = source.openedInput.outputCodec, let file = FileFormat.named(output.pathExtension), file.codec(named: codec) == nil {
            return try OutputFormat.forFile(output)
        }
        return try OutputFormat.forFile(output, codec: source.openedInput.outputCodec)
    }
}
