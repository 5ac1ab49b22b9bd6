import FFmpeg
import Foundation
import ReverseAudioCore

/// One MP3 file's complete packet index, built once and shared by the cuts made from it in
/// turn (the pieces of a split): each cut would otherwise read every packet header from the
/// start of the file up to its end, which for the pieces of a whole file reads it over and over.
///
/// Built by reading every packet in order from the start, as a cut's own index is (the
/// demuxer's end trimming is only right that way); complete, so never changed afterwards.
package final class SharedCutIndex: @unchecked Sendable {
    // @unchecked: `index` is set once, under `lock`, and only read after that.
    private let lock = NSLock()
    private var index: PacketIndex?
    private let url: URL

    /// A cache for cuts of `url`.
    package init(url: URL) {
        self.url = url
    }

    /// The complete index of `source`'s stream (an open of this cache's file), built on the
    /// first call with `source`, which is then read to its end (the caller seeks before reading on).
    func index(of source: AudioInput, isCancelled: () -> Bool) throws -> PacketIndex? {
        guard source.url.standardizedFileURL == url.standardizedFileURL else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let index { return index }
        let built = PacketIndex(for: source)
        let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
        try built.extend(through: .max, reader: reader, path: source.path, isCancelled: isCancelled)
        guard built.isComplete else { return nil }
        index = built
        return built
    }
}
