import Foundation

/// The NAME in NAME-REVERSED.wav for each input of a batch.
enum OutputNaming {
    /// The file name without its extension, or, where two inputs would share it, with the
    /// extension kept as "-ext" (song.mp3 and song.flac become song-mp3 and song-flac).
    static func uniqueNames(for inputs: [URL]) -> [String] {
        let bases = inputs.map { $0.deletingPathExtension().lastPathComponent }
        var counts: [String: Int] = [:]
        for base in bases { counts[base, default: 0] += 1 }
        return zip(inputs, bases).map { input, base in
            guard counts[base, default: 0] > 1, !input.pathExtension.isEmpty else { return base }
            return "\(base)-\(input.pathExtension)"
        }
    }
}
