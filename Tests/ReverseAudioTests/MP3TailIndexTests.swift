import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
import FFmpeg

/// Issue 30: an MP3's last packets placed by its tag frame (what a range near the end of a
/// file read from a URL fetches instead of the whole file) are placed exactly where reading
/// every packet from the first places them, for every class of MP3 the cut tests know; a file
/// whose tag FFmpeg does not apply gets no tail index (it is read from the start).
@Suite("An MP3's tail placed by its tag frame", .runsProcesses)
struct MP3TailIndexTests {
    static let kinds = MP3Classes.main + MP3Classes.more

    /// True when FFmpeg applies a LAME tag in `file`: its stream then starts after the
    /// encoder's delay (no tag frame, a VBRI frame, or one too small to write, as `lame -b 16`
    /// at 11.025 kHz makes, start at 0).
    static func isTagged(_ file: URL) async throws -> Bool {
        let start = try await FFmpegOracle.probe(file).stream["start_time"] as? String
        return start.flatMap(Double.init).map { $0 > 0 } == true
    }

    @Test("from the middle and near the end, every tail entry equals the index read from the start; the tag's length equals the decode's",
          arguments: kinds)
    func tailEqualsTheWholeIndex(_ kind: MP3Classes.Kind) async throws {
        let folder = try TemporaryDirectory()
        let file = try await MP3Classes.make(kind, seconds: 12, in: folder.url)
        let input = try AudioInput(url: file)
        let whole = PacketIndex(for: input)
        try whole.extend(through: .max, reader: PacketReader(demuxer: input.demuxer, streamIndex: input.streamIndex, endsOnReadError: false),
                         path: file.path, isCancelled: { false })
        #expect(whole.isComplete)
        let first = try #require(whole.entries.first?.position)
        let tag = try MP3InfoTag.read(input, firstFramePosition: first)
        guard try await Self.isTagged(file) else {
            #expect(tag == nil, "\(kind): FFmpeg applies no tag here, so none is read")
            return
        }
        let read = try #require(tag, "\(kind): the tag frame is read")
        let decoded = try await FFmpegOracle.samples(of: file, ["-ac", "1"]).count
        #expect(read.length == Int64(decoded), "\(kind): the tag's length is the decode's")
        #expect(whole.indexedFrames == Int64(decoded), "\(kind): the whole index's length is the decode's")
        for target in [read.length / 2, read.length - 1] {
            let tail = try #require(try PacketIndex.mp3Tail(of: input, tag: read, reaching: target, isCancelled: { false }),
                                    "\(kind): a tail reaching \(target)")
            #expect(tail.reaches(target))
            #expect(tail.indexedFrames == whole.indexedFrames)
            let offset = try #require(whole.entries.firstIndex { $0.position == tail.entries[0].position },
                                      "\(kind): the tail starts at a packet of the stream")
            #expect(whole.entries.count - offset == tail.entries.count, "\(kind): the tail holds every packet to the end")
            var differing = 0
            for (mine, theirs) in zip(tail.entries, whole.entries[offset...]) {
                if mine.position != theirs.position || mine.size != theirs.size || mine.rawStart != theirs.rawStart
                    || mine.outputStart != theirs.outputStart || mine.emitted != theirs.emitted || mine.skip != theirs.skip {
                    differing += 1
                }
            }
            #expect(differing == 0, "\(kind): \(differing) tail entries differ from the index read from the start")
            // Not a tail when the target lies in the first packets: read from the start instead.
            #expect(try PacketIndex.mp3Tail(of: input, tag: read, reaching: 0, isCancelled: { false }) == nil)
        }
    }
}
