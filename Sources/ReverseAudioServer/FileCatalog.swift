import Foundation
import Hummingbird
import ReverseAudio

/// What `GET /api/files` says of each file, read once per version of the file (the length is
/// resolved as every command resolves it, which may mean a pass over its packets), what that
/// pass learnt (``StreamFacts``: later opens for playback and waveforms take it instead of
/// reading the file again), and the waveform data made for it, each kept within a budget.
actor FileCatalog {
    /// One row of the list.
    struct Row: ResponseEncodable, Sendable {
        /// The path relative to the folder: the `{name}` of the other routes (URL-encoded there).
        let name: String
        /// Seconds, `frames ÷ sampleRate`.
        let duration: Double
        let frames: Int64
        let sampleRate: Int
        let channels: Int
        /// The format, as the file's extension names it ("mp3", "m4a", "flac").
        let format: String
        /// FFmpeg's codec name ("mp3", "aac", "flac", "pcm_s24le").
        let codec: String

        /// This row under `name` (one file may be reached by two names).
        func named(_ name: String) -> Row {
            Row(name: name, duration: duration, frames: frames, sampleRate: sampleRate, channels: channels, format: format, codec: codec)
        }
    }

    /// One entry of the list: a file's row, or for a file that cannot be read as audio its
    /// name, format and the reason (`{"name", "format", "error"}`), so that it is shown, not
    /// hidden; or one not described yet (`{"name", "format", "pending": true}`).
    enum ListRow: ResponseEncodable, Sendable {
        case readable(Row)
        case unreadable(name: String, reason: String)
        case pending(name: String)

        private enum Keys: String, CodingKey { case name, format, error, pending }

        func encode(to encoder: any Encoder) throws {
            let name: String
            switch self {
            case .readable(let row):
                try row.encode(to: encoder)
                return
            case .unreadable(let named, _), .pending(let named): name = named
            }
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try container.encode((name as NSString).pathExtension.lowercased(), forKey: .format)
            switch self {
            case .unreadable(_, let reason): try container.encode(reason, forKey: .error)
            default: try container.encode(true, forKey: .pending)
            }
        }
    }

    private var rows: [OpenFiles.Key: Row] = [:]
    private var describing: [OpenFiles.Key: Task<Result<Row, any Error>, Never>] = [:]
    /// ``StreamFacts`` kept (an hour of MP3's packet index is about 6 MiB).
    private var facts: BudgetedCache<OpenFiles.Key, StreamFacts>
    /// Waveform data kept.
    private var waveforms: BudgetedCache<WaveformKey, [UInt8]>
    private var passesInFlight: [PassKey: Task<[Int: [UInt8]], any Error>] = [:]
    /// Points a waveform may have (`frames ÷ samplesPerPixel`): bounds each request's memory
    /// and answer (about 12 MiB of JSON) whatever the file's length.
    static let maximumPixels = 1 << 20
    /// Whole-file passes made at once; more requests wait for one to end.
    private let passes = AsyncLimit(2)

    init(waveformBudget: Int = 64 << 20, factsBudget: Int = 64 << 20) {
        waveforms = BudgetedCache(budget: waveformBudget)
        facts = BudgetedCache(budget: factsBudget)
    }

    private struct WaveformKey: Hashable {
        let file: OpenFiles.Key
        let samplesPerPixel: Int
        let format: WaveformData.Format
        let part: Part
    }

    /// The row of `file`, or why it cannot be read as audio (the library's error). Requests
    /// for a file being described share its pass.
    func describe(_ file: FolderFile) async -> Result<Row, any Error> {
        let key = file.key, name = file.name
        if let found = rows[key] { return .success(found.named(name)) }
        let task: Task<Result<Row, any Error>, Never>
        if let running = describing[key] {
            task = running
        } else {
            task = Task { await self.read(file) }
            describing[key] = task
        }
        let described = await task.value
        describing[key] = nil
        return described.map { $0.named(name) }
    }

    /// `file`'s row if it was described already (nothing is read).
    func known(_ file: FolderFile) -> Row? { rows[file.key]?.named(file.name) }

    /// What describing `file` learnt for its later opens, describing it first if needed; nil
    /// when it cannot be read, or its opens cannot take them on trust.
    func facts(of file: FolderFile) async -> StreamFacts? {
        _ = await describe(file)
        return facts.value(for: file.key)
    }

    /// Reads `file`'s row and facts on a thread of its own, and keeps them.
    private func read(_ file: FolderFile) async -> Result<Row, any Error> {
        let name = file.name
        let opened: (info: AudioInfo, facts: StreamFacts?)
        do {
            let url = try file.url()
            opened = try await OffThread.run {
                let source = try AudioFileSource(url: url, plan: .lengthFirst)
                return (source.info, source.facts)
            }
        } catch {
            return .failure(error)
        }
        let info = opened.info
        guard let frames = info.frames, info.sampleRate > 0 else {
            return .failure(ReverseAudioError.input(.decodingFailed(path: name, reason: "its length cannot be known")))
        }
        let row = Row(name: name, duration: Double(frames) / Double(info.sampleRate), frames: frames, sampleRate: info.sampleRate,
                      channels: info.channelCount, format: (name as NSString).pathExtension.lowercased(), codec: info.codec)
        rows[file.key] = row
        if let made = opened.facts { facts.keep(made, size: made.bytes, for: file.key) }
        return .success(row)
    }

    /// The smallest samples-per-pixel a file of `frames` frames is drawn at.
    static func minimumSamplesPerPixel(frames: Int64) -> Int {
        max(2, Int((frames + Int64(maximumPixels) - 1) / Int64(maximumPixels)))
    }

    /// `file`'s waveform data at `samplesPerPixel`, in `format`: the bytes `reverse-audio
    /// waveform` writes (made in a temporary folder, then kept in memory within
    /// the waveform budget). A JSON level that is a power of two comes with the file's whole
    /// ladder of such levels (``ladder(frames:)``), made in the same pass, so every zoom after
    /// the first is at once. Requests for data being made share that pass.
    func waveform(of file: FolderFile, samplesPerPixel: Int, format: WaveformData.Format, part: Part = .whole) async throws -> [UInt8] {
        let key = WaveformKey(file: file.key, samplesPerPixel: samplesPerPixel, format: format, part: part)
        if let found = waveforms.value(for: key) { return found }
        let facts = await facts(of: file)
        let levels: [Int]
        if format == .json, samplesPerPixel.nonzeroBitCount == 1, let frames = rows[file.key]?.frames,
           Self.ladder(frames: frames).contains(samplesPerPixel) {
            levels = Self.ladder(frames: frames)
        } else {
            levels = [samplesPerPixel]
        }
        let range = try part.range(frames: rows[file.key]?.frames, coarsest: levels.last ?? samplesPerPixel)
        let pass = PassKey(file: file.key, format: format, first: levels[0], count: levels.count, part: part)
        let task: Task<[Int: [UInt8]], any Error>
        if let running = passesInFlight[pass] {
            task = running
        } else {
            let passes = self.passes
            task = Task<[Int: [UInt8]], any Error> {
                try await passes.run {
                    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reverse-audio-serve-\(UUID().uuidString)")
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    defer { try? FileManager.default.removeItem(at: folder) }
                    let outputs = levels.map { folder.appendingPathComponent("waveform-\($0).\(format.rawValue)") }
                    let url = try file.url()
                    try await BlockingWork.run { flag in
                        _ = try WaveformData.write(url, to: zip(outputs, levels).map { .init($0, zoom: .samplesPerPixel($1)) },
                                               range: range, cancellation: flag, facts: facts)
                    }
                    var made: [Int: [UInt8]] = [:]
                    for (output, level) in zip(outputs, levels) { made[level] = try [UInt8](Data(contentsOf: output)) }
                    return made
                }
            }
            passesInFlight[pass] = task
        }
        defer { passesInFlight[pass] = nil }
        let made = try await task.value
        for (level, bytes) in made.sorted(by: { $0.key > $1.key }) {
            waveforms.keep(bytes, size: bytes.count, for: WaveformKey(file: file.key, samplesPerPixel: level, format: format, part: part))
        }
        guard let bytes = made[samplesPerPixel] else { throw HTTPError(.internalServerError, message: "the waveform could not be made") }
        return bytes
    }

    /// One pass over a file (or a part of it): its format and the levels it makes.
    private struct PassKey: Hashable {
        let file: OpenFiles.Key
        let format: WaveformData.Format
        let first: Int
        let count: Int
        let part: Part
    }

    /// Parts `index` through `last` of `count` equal parts of a file, for a waveform drawn as it
    /// comes (a page asks for the first part alone, then for the rest in a few runs): each part
    /// starts at a multiple of the ladder's coarsest level, so every level's points split at the
    /// parts' edges and the parts, put end to end, are the whole file's waveform.
    struct Part: Hashable, Sendable {
        let index: Int
        let last: Int
        let count: Int

        init(index: Int, through last: Int? = nil, count: Int) {
            self.index = index
            self.last = last ?? index
            self.count = count
        }

        static let whole = Part(index: 0, count: 1)

        /// The frames of these parts of `frames`, nil for the whole.
        func range(frames: Int64?, coarsest: Int) throws -> TimeRange? {
            guard count > 1, index > 0 || last < count - 1, let frames else { return nil }
            let unit = Int64(coarsest)
            let edge = { (k: Int) -> Int64 in k >= count ? frames : (frames * Int64(k) / Int64(count)) / unit * unit }
            return try TimeRange(start: .frames(edge(index)), end: .frames(edge(last + 1)))
        }
    }

    /// The levels a page zooms through for a file of `frames`: every power of two from the
    /// least a file allows (``minimumSamplesPerPixel(frames:)``, rounded up) to one that draws
    /// the whole file in about 256 points.
    static func ladder(frames: Int64) -> [Int] {
        var level = 2
        while level < minimumSamplesPerPixel(frames: frames) { level *= 2 }
        var levels = [level]
        while frames / Int64(level * 2) >= 256 {
            level *= 2
            levels.append(level)
        }
        return levels
    }
}
