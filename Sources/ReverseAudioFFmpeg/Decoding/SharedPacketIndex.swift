import FFmpeg
import Foundation
import ReverseAudioCore

/// One MP3 file's complete packet index, built once by whoever needs it first and shared by the
/// others: the cuts made from the file in turn (the pieces of a split), or the readers decoding
/// it side by side (a reversal on several threads). Each would otherwise read every packet
/// header of the file for itself.
///
/// Built by reading every packet in order from the start, as any index of an MP3 is (the
/// demuxer's end trimming is only right that way); complete, so never changed afterwards.
/// Whoever asks while it is being built waits for it.
package final class SharedPacketIndex: @unchecked Sendable {
    // @unchecked: `index` and `gaveNone` are set once, under `lock`, and only read under it.
    private let lock = NSLock()
    private var index: PacketIndex?
    /// True once a build gave no complete index: the others do not try again.
    private var gaveNone = false
    private let url: URL
    /// The frames the index must cover, when the length was taken from elsewhere (an MP3's
    /// tag frame, for readers side by side): an index that covers another count shows the
    /// length was wrong.
    let expectedFrames: Int64?
    /// Where the stream's first packet starts in the file, when known: a reader goes back to
    /// the start by a byte seek there (which reads on exactly as a fresh open does) before the
    /// index is built.
    let streamStart: Int64?

    /// An index to be shared by the users of `url`.
    package convenience init(url: URL) {
        self.init(url: url, expectedFrames: nil, streamStart: nil)
    }

    init(url: URL, expectedFrames: Int64?, streamStart: Int64?) {
        self.url = url
        self.expectedFrames = expectedFrames
        self.streamStart = streamStart
    }

    /// The complete index of `source`'s stream (an open of this index's file): built by
    /// `build` on `source` on the first call, while later calls wait; nil when `source` is
    /// another file's or no build gave a complete one.
    func index(of source: AudioInput, build: (AudioInput) throws -> PacketIndex) throws -> PacketIndex? {
        guard source.url.standardizedFileURL == url.standardizedFileURL else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let index { return index }
        if gaveNone { return nil }
        let built = try build(source)
        guard built.isComplete else {
            gaveNone = true
            return nil
        }
        index = built
        return built
    }

    /// The complete index of `source`'s stream, read in order from where its demuxer is (the
    /// stream's first packet: the caller opened it and read nothing yet); `source` is then read
    /// to its end (the caller seeks before reading on).
    func index(ofFreshlyOpened source: AudioInput, isCancelled: () -> Bool) throws -> PacketIndex? {
        try index(of: source) { source in
            let built = PacketIndex(for: source)
            let reader = PacketReader(demuxer: source.demuxer, streamIndex: source.streamIndex, endsOnReadError: false)
            try built.extend(through: .max, reader: reader, path: source.path, isCancelled: isCancelled)
            return built
        }
    }
}
