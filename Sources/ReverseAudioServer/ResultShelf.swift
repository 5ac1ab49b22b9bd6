import Foundation
import Hummingbird
import ReverseAudio

/// The results: the files jobs wrote into the output folder (its top level; neither the
/// uploads nor a job's partial file), listed after a reload as they were when they were made,
/// and opened by name as the folder's files are (``MediaFolder``), for the same player.
struct ResultShelf: Sendable {
    let output: URL

    /// One result as `GET /api/results` gives it: its name and size, `audio` with the list's
    /// fields, or `video`.
    struct Row: ResponseEncodable, Sendable {
        let name: String
        let size: Int64
        let kind: String
        let duration: Double?
        let frames: Int64?
        let sampleRate: Int?
        let channels: Int?
        let format: String
        let codec: String?
    }

    /// The output folder as a folder to open names in (nil before the first job made it).
    private func folder() throws -> MediaFolder? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output.path, isDirectory: &isFolder), isFolder.boolValue else { return nil }
        return try MediaFolder(root: output, output: output.appendingPathComponent(UploadStore.folderName))
    }

    /// Result `name`, opened, or 404.
    func open(_ name: String) throws -> FolderFile {
        guard !name.contains("/"), !name.hasPrefix("."), let folder = try? folder() else {
            throw HTTPError(.notFound, message: "\(name): no such result")
        }
        return try folder.open(name)
    }

    /// True for a name a video job writes (`.mp4`, `.mov`, `.mkv`).
    private static func isVideo(_ name: String) -> Bool {
        (try? VideoContainer.forFile(URL(fileURLWithPath: name))) != nil
    }

    /// The results, newest first.
    func list(catalog: FileCatalog) async throws -> [Row] {
        guard let folder = try? folder() else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []).filter { !$0.hasPrefix(".") }
        var rows: [(Row, Int64)] = []
        for name in names {
            guard let file = try? folder.open(name) else { continue }
            let format = (name as NSString).pathExtension.lowercased()
            let modified = file.key.modified
            switch await catalog.describe(file) {
            case .success(let audio) where !Self.isVideo(name):
                rows.append((Row(name: name, size: file.key.size, kind: "audio", duration: audio.duration, frames: audio.frames,
                                 sampleRate: audio.sampleRate, channels: audio.channels, format: format, codec: audio.codec), modified))
            default:
                guard Self.isVideo(name) else { continue }
                rows.append((Row(name: name, size: file.key.size, kind: "video", duration: nil, frames: nil, sampleRate: nil,
                                 channels: nil, format: format, codec: nil), modified))
            }
        }
        return rows.sorted { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0.name < $1.0.name) }.map(\.0)
    }
}
