import Foundation
import Hummingbird
import ReverseAudio

/// What `GET /api/files` says of each file, read once per version of the file (the length is
/// resolved as every command resolves it, which may mean a pass over its packets), and the
/// waveform data made for it, kept while few.
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
    }

    private var rows: [OpenFiles.Key: Row] = [:]
    private var waveforms: [WaveformKey: [UInt8]] = [:]
    private var waveformOrder: [WaveformKey] = []

    private struct WaveformKey: Hashable {
        let file: OpenFiles.Key
        let samplesPerPixel: Int
        let format: WaveformData.Format
    }

    /// The row of `url`, named `name`; nil for a file that cannot be read as audio (it is left
    /// out of the list, as `list` leaves it out).
    func row(name: String, url: URL) async -> Row? {
        guard let key = OpenFiles.Key(path: url.path) else { return nil }
        if let found = rows[key] { return Row(name: name, duration: found.duration, frames: found.frames, sampleRate: found.sampleRate,
                                              channels: found.channels, format: found.format, codec: found.codec) }
        guard let info = try? await OffThread.run({ try AudioInfo.read(from: url) }), let frames = info.frames, info.sampleRate > 0 else {
            return nil
        }
        let row = Row(name: name, duration: Double(frames) / Double(info.sampleRate), frames: frames, sampleRate: info.sampleRate,
                      channels: info.channelCount, format: url.pathExtension.lowercased(), codec: info.codec)
        rows[key] = row
        return row
    }

    /// `url`'s waveform data at `samplesPerPixel`, in `format`: the bytes `reverse-audio
    /// waveform` writes (made in a temporary folder, then kept in memory while few).
    func waveform(of url: URL, samplesPerPixel: Int, format: WaveformData.Format) async throws -> [UInt8] {
        guard let file = OpenFiles.Key(path: url.path) else { throw HTTPError(.notFound, message: "no such file") }
        let key = WaveformKey(file: file, samplesPerPixel: samplesPerPixel, format: format)
        if let found = waveforms[key] { return found }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reverse-audio-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("waveform.\(format.rawValue)")
        try await WaveformData.write(url, to: [.init(output, zoom: .samplesPerPixel(samplesPerPixel))])
        let bytes = try [UInt8](Data(contentsOf: output))
        waveforms[key] = bytes
        waveformOrder.append(key)
        if waveformOrder.count > 16 { waveforms[waveformOrder.removeFirst()] = nil }
        return bytes
    }
}
