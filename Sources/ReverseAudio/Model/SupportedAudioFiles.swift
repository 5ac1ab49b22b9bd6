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
        let contents: [URL]
        do {
            contents = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        } catch {
            throw ReverseAudioError.unreadable(path: directory.path, reason: "cannot list the folder")
        }
        return contents
            .filter { isSupported($0) && ((try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false) }
            .sorted { $0.lastPathComponent.localizedStandardCompare($1.lastPathComponent) == .orderedAscending }
    }
}
