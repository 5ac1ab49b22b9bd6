import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

extension Composition {
    /// The chapters of `input`'s container (MP4, Matroska, ID3v2 `CHAP`), each as the frame of
    /// the decode where it starts and its title, in the order the container lists them.
    package static func chapters(of input: URL) throws -> [(start: Int64, end: Int64, title: String?)] {
        try AudioInput(url: input).chapters
    }

    /// The extension `input`'s pieces are written with: its own where a piece in that format can
    /// state its cut (not an ADTS `.aac`, which cannot state the encoder's priming: `.m4a`), else
    /// the format made for its codec (FLAC in Matroska: `.flac`; AAC: `.m4a`), else `.wav`.
    package static func pieceExtension(for input: URL) throws -> String {
        let own = input.pathExtension
        let adts = FileFormat.adts.name
        if let format = FileFormat.named(own), !own.isEmpty, format.name != adts { return own }
        let codec = try AudioInput(url: input).outputCodec
        let formats: [FileFormat] = FileFormat.all.filter { $0.name != adts }
        let named: FileFormat? = formats.first { $0.name == codec }
        let holding: FileFormat? = formats.first { format in format.codecs.contains { $0.name == codec } }
        return (named ?? holding)?.extensions.first ?? "wav"
    }

    /// The silences inside `input`: runs of at least `minimumFrames` frames in which every
    /// sample of every channel lies below `thresholdDB` (dB below full scale), found by decoding
    /// it once. A silence at the very start or end is left out (a piece there would hold nothing
    /// else). What `split --silence` cuts in the middle of, as mp3splt's silence mode does.
    package static func silences(in input: URL, thresholdDB: Double, minimumFrames: Int64,
                                 cancellation: CancellationFlag? = nil) throws -> [Range<Int64>] {
        let reader = try AudioReader(url: input, sampleFormat: .f32)
        let channels = reader.format.channelCount
        let threshold = Float(pow(10, thresholdDB / 20))
        var found: [Range<Int64>] = []
        // The run of silent frames so far (one from frame 0 is the start's: never kept).
        var runStart: Int64? = 0
        var position: Int64 = 0
        while let chunk = try reader.read(maximumFrames: 1 << 16) {
            if cancellation?.isCancelled == true { throw CancellationError() }
            let samples = chunk.samples(as: Float.self)
            for frame in 0..<chunk.frameCount {
                let first = frame * channels
                var silent = true
                for channel in 0..<channels where abs(samples[first + channel]) >= threshold {
                    silent = false
                    break
                }
                let at = position + Int64(frame)
                if silent {
                    if runStart == nil { runStart = at }
                } else if let start = runStart {
                    if start > 0 && at - start >= minimumFrames { found.append(start..<at) }
                    runStart = nil
                }
            }
            position += Int64(chunk.frameCount)
        }
        return found
    }

    /// Splits `input` into pieces that follow one another, each written as `trim` writes a cut:
    /// in the input's own format, its packets copied where the container can state the cut
    /// exactly (an MP3 behind a LAME tag with its bit reservoir repaired, an MP4 behind an edit
    /// list; lossless formats sample for sample), so that the pieces decoded one after another
    /// give exactly the whole file's decode.
    ///
    /// Each piece is written under a temporary name and published whole; when one fails, the
    /// pieces this call already wrote are removed, so a split leaves all its pieces or none.
    /// Pieces are written side by side, one a core (each is decoded once to check its length);
    /// an MP3's packets are indexed once for all of them.
    /// - Parameters:
    ///   - input: the file to split.
    ///   - starts: where each piece after the first starts, in frames of the input, increasing
    ///     and inside it (the first piece starts at 0, the last ends at the end).
    ///   - outputs: the pieces' files, one more than `starts`, in order.
    ///   - tags: each piece's tags (`"title"`, `"track"`, `"artist"`…), written in place of the
    ///     input's tags of the same names (the others are kept on every piece); empty, or one
    ///     dictionary a piece.
    ///   - overwrite: replace pieces that exist (else an existing one is an error).
    ///   - progress: fractions of the whole split, in 0...1.
    /// - Returns: each piece's result, in order.
    /// - Throws: `ReverseAudioError` (a start outside the file or out of order is a range
    ///   error), or `CancellationError`.
    public static func split(_ input: URL, at starts: [Int64], to outputs: [URL], tags: [[String: String]] = [],
                             overwrite: Bool = false, progress: ProgressHandler? = nil) async throws -> [Result] {
        guard tags.isEmpty || tags.count == outputs.count else {
            throw ReverseAudioError.range(.invalidRange(reason: "\(tags.count) sets of tags for \(outputs.count) pieces"))
        }
        guard outputs.count == starts.count + 1 else {
            throw ReverseAudioError.range(.invalidRange(reason: "\(starts.count) split points make \(starts.count + 1) pieces, not \(outputs.count)"))
        }
        let bounds = [Int64(0)] + starts
        for (earlier, later) in zip(bounds, bounds.dropFirst()) where later <= earlier {
            throw ReverseAudioError.range(.invalidRange(reason: "split points must increase: frame \(later) comes after frame \(earlier)"))
        }
        let shared = SharedPacketIndex(url: input)
        let fractions = PieceFractions(count: outputs.count, report: progress)
        var pieces: [Composition] = []
        for index in outputs.indices {
            let range = index + 1 < bounds.count
                ? try TimeRange(start: .frames(bounds[index]), end: .frames(bounds[index + 1]))
                : try TimeRange(start: .frames(bounds[index]))
            var piece = Composition(pieces: [.file(input, range: range)], overwrite: overwrite)
            piece.sharedCutIndex = shared
            if !tags.isEmpty { piece.tags = tags[index].sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) } }
            piece.progress = { @Sendable fraction in fractions.set(fraction, of: index) }
            pieces.append(piece)
        }
        let lanes = max(1, min(ProcessInfo.processInfo.activeProcessorCount, outputs.count))
        var results = [Result?](repeating: nil, count: outputs.count)
        var failure: (any Error)?
        await withTaskGroup(of: (Int, Swift.Result<Result, any Error>).self) { group in
            var next = 0
            func start() {
                let index = next
                let piece = pieces[index]
                let output = outputs[index]
                group.addTask {
                    do { return (index, .success(try await piece.write(to: output))) } catch { return (index, .failure(error)) }
                }
                next += 1
            }
            while next < lanes { start() }
            // Every piece started is waited for, so that none is left behind when one fails.
            while let (index, outcome) = await group.next() {
                switch outcome {
                case .success(let result): results[index] = result
                case .failure(let error):
                    if failure == nil || failure is CancellationError { failure = error }
                }
                if failure == nil && next < outputs.count && !Task.isCancelled { start() }
            }
        }
        if failure == nil && Task.isCancelled { failure = CancellationError() }
        if let failure {
            for written in results.compactMap({ $0 }) { try? FileManager.default.removeItem(at: written.output) }
            throw failure
        }
        progress?(1)
        return results.compactMap { $0 }
    }
}

/// The fractions of a split's pieces written so far, told as one fraction of the whole.
private final class PieceFractions: @unchecked Sendable {
    // @unchecked: `done` is used only under `lock`.
    private let lock = NSLock()
    private var done: [Double]
    private let report: ProgressHandler?

    init(count: Int, report: ProgressHandler?) {
        done = Array(repeating: 0, count: count)
        self.report = report
    }

    func set(_ fraction: Double, of piece: Int) {
        guard let report else { return }
        // Told under the lock: pieces reporting in turn cannot overtake each other.
        lock.lock()
        defer { lock.unlock() }
        done[piece] = min(max(fraction, 0), 1)
        report(min(done.reduce(0, +) / Double(done.count), 0.999))
    }
}
