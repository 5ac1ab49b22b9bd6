import Foundation

/// The audio files ReverseAudio lists in a folder: the seed app's nine extensions.
public enum SupportedAudioFiles {
    /// The extensions the original app listed, in its order.
    public static let extensions: [String] = ["aac", "m4a", "aiff", "aif", "wav", "mp3", "caf", "m4r", "flac"]

    /// True when `url`'s extension is one of ``extensions`` (case-insensitive).
    public static func isSupported(_ url: URL) -> Bool {
        extensions.contains(url.pathExtension.lowercased())
    }

    /// The supported audio files directly inside `directory`, sorted by name.
    /// Hidden files and subfolders are skipped.
    public static func files(in directory: URL) throws -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw ReverseAudioError.unreadable(path: directory.displayPath, reason: "cannot list the folder")
        }
        // Built from `directory` so a relative folder gives relative paths in reports.
        return names
            .filter { !$0.hasPrefix(".") }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            .map { directory.appendingPathComponent($0) }
            .filter { url in
                var isDirectory: ObjCBool = false
                return isSupported(url) && FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
    }
}
