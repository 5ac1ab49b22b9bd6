import Foundation
import ReverseAudio

/// Where each input of a batch goes under the output folder: its relative folder, and NAME.
enum OutputNaming {
    /// The file name without its extension, or, where two inputs in one folder would share it,
    /// with the extension kept as "-ext" (song.mp3 and song.flac become song-mp3 and song-flac),
    /// and a number after that if they still would (the same name from two folder arguments).
    /// - Returns: "relative/folder/NAME" (or "NAME") for each input, in order.
    static func uniqueNames(for inputs: [SupportedAudioFiles.Found]) -> [String] {
        func key(_ found: SupportedAudioFiles.Found, _ name: String) -> String {
            found.relativeFolder.isEmpty ? name : found.relativeFolder + "/" + name
        }
        let bases = inputs.map { $0.url.deletingPathExtension().lastPathComponent }
        var counts: [String: Int] = [:]
        for (found, base) in zip(inputs, bases) { counts[key(found, base).lowercased(), default: 0] += 1 }
        var taken: Set<String> = []
        return zip(inputs, bases).map { found, base in
            var name = base
            if counts[key(found, base).lowercased(), default: 0] > 1, !found.url.pathExtension.isEmpty {
                name = "\(base)-\(found.url.pathExtension)"
            }
            var candidate = key(found, name)
            var number = 2
            while taken.contains(candidate.lowercased()) {
                candidate = key(found, "\(name)-\(number)")
                number += 1
            }
            taken.insert(candidate.lowercased())
            return candidate
        }
    }
}
