import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
import ReverseAudioTesting

/// The pieces the scheduler is built from, on frames in memory and unnamed temporary files: the
/// temporary file a reversal waits in (written and read at any frame, never seen in its folder),
/// the reversal read in order (any chunk and block size, an input that misstates its length or
/// states none, seeks, cancellation), readers whose segments must meet in the input, and the
/// reasons put into words when one reader does the work.
@Suite struct SchedulingPiecesInProcessTests {
    // MARK: Helpers


    /// What the counting source of `frames` frames holds, frames in reverse order, channels kept.
    static func reversal(frames: Int, channels: Int) -> [Int16] {
        let forward = MemorySource.countingSamples(frames: frames, channelCount: channels)
        return stride(from: frames - 1, through: 0, by: -1).flatMap { forward[($0 * channels)..<(($0 + 1) * channels)] }
    }

    /// The reversal of `source`, read by one reader, its temporary file in `folder`.
    static func reversed(_ source: MemorySource, blockFrames: Int? = nil, in folder: URL,
                         cancellation: CancellationFlag? = nil) -> ReversedSource {
        let input = Scheduler.Input(source: source, splitting: .single(reason: .pipe), blockFrames: blockFrames, name: "memory")
        return Scheduler(threads: 1, cancellation: cancellation, temporaryFolder: folder).reversal(of: input)
    }

    /// A counting source that tells where in the input its frames come from: frame `f` from
    /// offset `10 f`, except that a seek to `oddLanding` lands 5 bytes further (a timestamp a
    /// seek lands on that a continuous read does not), and the input starts at `inputStart`.
    final class MarkedSource: PCMSource {
        let inner: MemorySource
        let oddLanding: Int64?
        let inputStart: Int64
        private var landingFrame: Int64 = 0
        private var lastFrame: Int64?

        init(frames: Int, oddLanding: Int64?, inputStart: Int64) {
            inner = .counting(frames: frames, chunkFrames: 700)
            self.oddLanding = oddLanding
            self.inputStart = inputStart
        }

        var format: PCMFormat { inner.format }
        var length: PCMLength { inner.length }

        func read(maximumFrames: Int) throws -> PCMChunk? {
            guard let chunk = try inner.read(maximumFrames: maximumFrames) else { return nil }
            lastFrame = chunk.position + Int64(chunk.frameCount) - 1
            return chunk
        }

        func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
            let seeked = try inner.seek(to: frame, endingAt: end)
            landingFrame = seeked.reached
            lastFrame = nil
            return seeked
        }

        var marks: SegmentMarks {
            SegmentMarks(inputStart: inputStart, landing: landingFrame * 10 + (landingFrame == oddLanding ? 5 : 0),
                         current: lastFrame.map { $0 * 10 })
        }
    }

    /// Readers of marked sources side by side; an open that fails, when asked for.
    final class MarkedReaders: SegmentReaders, @unchecked Sendable {
        // @unchecked: set up before the work starts; each source is then used by one thread.
        private let make: () -> MarkedSource
        let first: MarkedSource
        var openFails = false

        init(_ make: @escaping () -> MarkedSource) {
            self.make = make
            first = make()
        }

        var main: SegmentReader { Self.reader(first) }

        func open() throws -> SegmentReader? {
            if openFails { throw ReverseAudioError.input(.unreadable(path: "again.wav", reason: "gone")) }
            return Self.reader(make())
        }

        func rewindMain() throws { _ = try first.seek(to: 0, endingAt: nil) }

        static func reader(_ source: MarkedSource) -> SegmentReader {
            SegmentReader(source: source, problems: { 0 }, marks: { source.marks })
        }
    }

    /// A forward transfer of marked readers on three threads, into a sink that takes positions,
    /// with segments at 0, 3000, 6000 and 10 000.
    static func transferMarked(_ readers: MarkedReaders) throws -> (Scheduler.Report, MemorySink) {
        var scheduler = Scheduler(threads: 3)
        scheduler.segmentBoundaries = { total in [0, 3_000, 6_000, total] }
        let sink = MemorySink(format: readers.first.format)
        let input = Scheduler.Input(source: readers.first, splitting: .readers(readers), name: "memory")
        return (try scheduler.transfer(input, reversed: false, into: sink), sink)
    }

    // MARK: The temporary file

    @Test("frames written at any frame, in any order, read back at any frame; its size what was written")
    func temporaryFileAnyOrder() throws {
        let folder = try TemporaryDirectory()
        let file = try TemporaryPCMFile(in: folder.url, bytesPerFrame: 4)
        let samples = MemorySource.countingSamples(frames: 1_000, channelCount: 2)
        // Written as ten blocks of 100 frames, in a shuffled order.
        try samples.withUnsafeBytes { bytes in
            for block in [7, 2, 9, 0, 5, 1, 8, 3, 6, 4] {
                try file.write(UnsafeRawBufferPointer(rebasing: bytes[(block * 400)..<((block + 1) * 400)]), frames: 100,
                               at: Int64(block * 100))
            }
        }
        #expect(file.size == 4_000)
        for (frame, count) in [(999, 1), (0, 1_000), (123, 456), (500, 1)] {
            let read = try file.read(frames: count, at: Int64(frame))
            let expected = Array(samples[(frame * 2)..<((frame + count) * 2)])
            #expect(read.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == expected, "\(count) frames at \(frame)")
        }
    }

    @Test("the temporary file has no name in its folder from the start, yet is open through /dev/fd")
    func temporaryFileUnnamed() throws {
        let folder = try TemporaryDirectory()
        let file = try TemporaryPCMFile(in: folder.url, bytesPerFrame: 2)
        #expect(folder.contents.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file.url.path))
        #expect(file.url.lastPathComponent.hasPrefix(".reverse-audio-") && file.url.pathExtension == "pcm")
        let samples: [Int16] = [1, -2, 3]
        try samples.withUnsafeBytes { try file.write($0, frames: 3, at: 0) }
        #expect(file.descriptorURL.path.hasPrefix("/dev/fd/"))
        #expect(try [UInt8](Data(contentsOf: file.descriptorURL)) == samples.withUnsafeBytes { [UInt8]($0) })
        #expect(folder.contents.isEmpty)
    }

    @Test("a gap written past reads as zeros; reading past the end is the typed error; discarding empties the file")
    func temporaryFileEdges() throws {
        let folder = try TemporaryDirectory()
        let file = try TemporaryPCMFile(in: folder.url, bytesPerFrame: 2)
        let samples: [Int16] = [7, 8]
        try samples.withUnsafeBytes { try file.write($0, frames: 2, at: 10) }
        #expect(file.size == 24)
        #expect(try file.read(frames: 12, at: 0) == [UInt8](repeating: 0, count: 20) + [7, 0, 8, 0])
        #expect {
            _ = try file.read(frames: 3, at: 10)
        } throws: { error in
            guard case ReverseAudioError.input(.unreadable(_, let reason)) = error else { return false }
            return reason == "unexpected end"
        }
        try file.discardWrites(expectingFrames: 5)
        #expect(file.size == 0)
        #expect(throws: ReverseAudioError.self) { _ = try file.read(frames: 1, at: 0) }
    }

    @Test("the temporary file copied whole into an existing file; into a missing one, the error names it as given")
    func temporaryFileCopy() throws {
        let folder = try TemporaryDirectory()
        let file = try TemporaryPCMFile(in: folder.url, bytesPerFrame: 2)
        // More than the copy's 1 MiB buffer: two reads and writes.
        let samples = MemorySource.countingSamples(frames: 600_000)
        try samples.withUnsafeBytes { try file.write($0, frames: 600_000, at: 0) }
        let target = folder.file("out.pcm")
        #expect(FileManager.default.createFile(atPath: target.path, contents: nil))
        try file.copy(to: target, path: "out.pcm")
        #expect(try Data(contentsOf: target) == samples.withUnsafeBytes { Data($0) })
        #expect {
            try file.copy(to: folder.file("missing/out.pcm"), path: "missing/out.pcm")
        } throws: { error in
            guard case ReverseAudioError.output(.writeFailed(let path, _)) = error else { return false }
            return path == "missing/out.pcm"
        }
    }

    @Test("a temporary file in a folder that does not exist is the typed error naming where it was to be")
    func temporaryFileNoFolder() throws {
        let folder = try TemporaryDirectory()
        #expect {
            _ = try TemporaryPCMFile(in: folder.file("gone"), bytesPerFrame: 4)
        } throws: { error in
            guard case ReverseAudioError.output(.cannotCreateOutput(let path, _)) = error else { return false }
            return path.hasPrefix(folder.file("gone").path + "/")
        }
    }

    // MARK: The reversal read in order

    @Test("a reversal read in chunks of any size, placed in blocks of any size: every frame once, channels kept",
          arguments: [1, 3, 64, 1_151, 1_152, 5_000, 7_777, 10_000], [1, 7, 4_096])
    func reversalChunks(step: Int, blockFrames: Int) throws {
        let folder = try TemporaryDirectory()
        let reversal = Self.reversed(.counting(frames: 7_777, channelCount: 2), blockFrames: blockFrames, in: folder.url)
        var positions: [Int64] = []
        var samples: [Int16] = []
        while let chunk = try reversal.read(maximumFrames: step) {
            #expect(chunk.frameCount <= step)
            positions.append(chunk.position)
            samples += chunk.samples(as: Int16.self)
        }
        #expect(samples == Self.reversal(frames: 7_777, channels: 2))
        #expect(positions == Array(stride(from: Int64(0), to: 7_777, by: step)))
        #expect(reversal.placement.blockFrames == blockFrames)
    }

    @Test("a reversal of an input whose length nothing states: stored forwards, read from its end, in chunks of any size",
          arguments: [1, 5, 999, 4_000, 20_000])
    func reversalUnknownLength(step: Int) throws {
        let folder = try TemporaryDirectory()
        let reversal = Self.reversed(.counting(frames: 4_000, channelCount: 3, stating: .unknown, chunkFrames: 333), in: folder.url)
        #expect(reversal.length == .unknown)
        #expect(try reversal.remainingSamples(step: step) == Self.reversal(frames: 4_000, channels: 3))
        #expect(reversal.length == PCMLength(frames: 4_000, source: .decode))
    }

    @Test("an input that states more frames than it holds, or fewer: decoded again at its true length, reversed exactly",
          arguments: [500, -500])
    func reversalMisstatedLength(misstatement: Int64) throws {
        let folder = try TemporaryDirectory()
        let reversal = Self.reversed(.counting(frames: 3_000, channelCount: 2, stating: .frames(3_000 + misstatement)), in: folder.url)
        #expect(reversal.length == PCMLength(frames: 3_000 + misstatement, source: .container))
        #expect(try reversal.remainingSamples(step: 256) == Self.reversal(frames: 3_000, channels: 2))
        #expect(reversal.length == PCMLength(frames: 3_000, source: .decode))
        #expect(reversal.placement.passes == 2)
        #expect(reversal.temporaryBytes == 3_000 * 4)
    }

    @Test("a reversal seeks to any frame and reads on from there; past its end it reaches the end, before its start the start",
          arguments: [true, false])
    func reversalSeeks(lengthKnown: Bool) throws {
        let folder = try TemporaryDirectory()
        let frames = 300
        let reversal = Self.reversed(.counting(frames: frames, channelCount: 2, stating: lengthKnown ? .exact : .unknown),
                                     in: folder.url)
        let all = Self.reversal(frames: frames, channels: 2)
        for frame in stride(from: frames, through: 0, by: -1) {
            #expect(try reversal.seek(to: Int64(frame), endingAt: nil).reached == Int64(frame))
            #expect(reversal.position == Int64(frame))
            #expect(try reversal.remainingSamples(step: 37) == Array(all[(frame * 2)...]))
        }
        #expect(try reversal.seek(to: 1_000, endingAt: nil) == SeekedTo(required: 1_000, reached: 300))
        #expect(try reversal.read(maximumFrames: 10) == nil)
        #expect(try reversal.seek(to: -20, endingAt: nil) == SeekedTo(required: -20, reached: 0))
        #expect(try reversal.remainingSamples() == all)
    }

    @Test("a reversal's temporary file holds the raw audio, is never seen in its folder, and is gone once closed")
    func reversalTemporaryFile() throws {
        let folder = try TemporaryDirectory()
        let source = MemorySource.counting(frames: 5_000, channelCount: 2)
        let reversal = Self.reversed(source, in: folder.url)
        #expect(reversal.temporaryBytes == 0 && source.reads == 0, "nothing read before the first read")
        _ = try reversal.read(maximumFrames: 10)
        #expect(reversal.temporaryBytes == 5_000 * 4)
        #expect(reversal.placement.temporaryBytes == 5_000 * 4)
        #expect(folder.contents.isEmpty)
        reversal.close()
        #expect(reversal.temporaryBytes == 0)
        #expect(try reversal.read(maximumFrames: 10) == nil)
    }

    @Test("a reversal of no frames gives none, with a length of 0, known or not", arguments: [true, false])
    func reversalEmpty(lengthKnown: Bool) throws {
        let folder = try TemporaryDirectory()
        let reversal = Self.reversed(.counting(frames: 0, stating: lengthKnown ? .exact : .unknown), in: folder.url)
        #expect(try reversal.read(maximumFrames: 10) == nil)
        #expect(reversal.length.frames == 0)
    }

    @Test("a reversal whose scheduler is cancelled stops with CancellationError, the length known or not", arguments: [true, false])
    func reversalCancelled(lengthKnown: Bool) throws {
        let folder = try TemporaryDirectory()
        let flag = CancellationFlag()
        flag.cancel()
        let reversal = Self.reversed(.counting(frames: 5_000, stating: lengthKnown ? .exact : .unknown), in: folder.url,
                                     cancellation: flag)
        #expect(throws: CancellationError.self) { _ = try reversal.read(maximumFrames: 10) }
    }

    // MARK: Readers side by side

    @Test("readers whose segments meet in the input: placed on three threads, every frame in its place")
    func segmentsMeet() throws {
        let readers = MarkedReaders { MarkedSource(frames: 10_000, oddLanding: nil, inputStart: 0) }
        let (report, sink) = try Self.transferMarked(readers)
        #expect(report.threadsUsed == 3 && report.singleThreadReason == nil)
        #expect(sink.samples == MemorySource.countingSamples(frames: 10_000))
    }

    @Test("a seek that lands elsewhere in the input than reading reaches: segments 2 and 3 do not meet, one reader redoes it")
    func segmentsDoNotMeet() throws {
        let readers = MarkedReaders { MarkedSource(frames: 10_000, oddLanding: 6_000, inputStart: 0) }
        let (report, sink) = try Self.transferMarked(readers)
        #expect(report.singleThreadReason == .segmentsDoNotMeet(segment: 2))
        #expect(report.threadsUsed == 1)
        #expect(sink.restarts == 1)
        #expect(sink.samples == MemorySource.countingSamples(frames: 10_000))
    }

    @Test("a first segment that does not start where the input does: declined, one reader redoes it")
    func firstSegmentOffStart() throws {
        let readers = MarkedReaders { MarkedSource(frames: 10_000, oddLanding: nil, inputStart: 7) }
        let (report, sink) = try Self.transferMarked(readers)
        #expect(report.singleThreadReason == .firstSegmentOffStart)
        #expect(sink.samples == MemorySource.countingSamples(frames: 10_000))
    }

    @Test("another reader that cannot be opened: its error comes back and the sink is cancelled")
    func openFails() throws {
        let readers = MarkedReaders { MarkedSource(frames: 10_000, oddLanding: nil, inputStart: 0) }
        readers.openFails = true
        #expect {
            _ = try Self.transferMarked(readers)
        } throws: { error in
            (error as? ReverseAudioError)?.description == "again.wav: cannot read: gone"
        }
    }

    // MARK: Reasons for one reader

    static let everyReason: [OneReaderReason] = [
        .oneThreadAsked, .piecesReadInOrder, .renderedAsPlayed, .lengthUnknown, .sampleRateConverted, .shortRange, .storedSamples,
        .pipe, .seekNotBitExact(codec: "aac", noiseSubstitution: true), .seekNotBitExact(codec: "aac", noiseSubstitution: false),
        .timestampsNameNoSamples, .damagedAtStart, .framesChangeFormat, .onlyLastPacketsIndexed, .tooShort(minimumSegmentFrames: 65_536),
        .readersDiffer, .segmentsDoNotTile, .firstSegmentOffStart, .segmentsDoNotMeet(segment: 3), .seekMissed(frame: 10, reached: 12),
        .streamEndedEarly(atFrame: 90, statedFrames: 100), .streamGoesOn(statedFrames: 100), .damageMet,
        .segmentNotPlaced(index: 4), .framesUnplaced(placed: 5, total: 9),
    ]

    @Test("every reason reads as a phrase to go inside a sentence: no capital but an acronym's, one line, no option names, none like another")
    func reasonsInWords() {
        for reason in Self.everyReason {
            let words = reason.description
            let start = words.prefix(2)
            #expect(start.first?.isLowercase == true || start.first?.isNumber == true || start.allSatisfy(\.isUppercase), "\(words)")
            #expect(!words.contains("--"), "no option names: \(words)")
            #expect(!words.contains("\n") && !words.hasSuffix(".") && words == words.trimmingCharacters(in: .whitespaces))
            #expect(!words.split(separator: " ").contains { $0.hasPrefix("-") }, "no option names: \(words)")
            #expect(words.split(separator: " ").count >= 3, "a phrase, not a word: \(words)")
        }
        #expect(Set(Self.everyReason.map(\.description)).count == Self.everyReason.count)
    }

    @Test("a reason's values appear in its words")
    func reasonsCarryValues() {
        #expect(OneReaderReason.segmentsDoNotMeet(segment: 3).description.hasPrefix("segments 3 and 4 do not meet"))
        #expect(OneReaderReason.seekMissed(frame: 10, reached: 12).description == "a seek to frame 10 reached 12")
        #expect(OneReaderReason.streamEndedEarly(atFrame: 90, statedFrames: 100).description
            == "the stream ended at frame 90, before the 100 frames it states")
        #expect(OneReaderReason.framesUnplaced(placed: 5, total: 9).description == "5 of 9 frames were placed")
        #expect(OneReaderReason.seekNotBitExact(codec: "vorbis", noiseSubstitution: false).description
            == "vorbis's decode restarted after a seek is not bit-exact")
        #expect(OneReaderReason.seekNotBitExact(codec: "aac", noiseSubstitution: true).description.contains("noise substitution"))
    }

    // MARK: Frame reversal

    @Test("reversing frames twice gives them back, over runs far longer than the vector's eight words", arguments: [2, 3, 4, 6, 8, 12, 16, 10])
    func frameReversalTwice(frameBytes: Int) {
        let frames = 4_099
        let original = (0..<(frames * frameBytes)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 7) }
        var once = [UInt8](repeating: 0, count: original.count)
        var twice = [UInt8](repeating: 0, count: original.count)
        original.withUnsafeBytes { from in
            once.withUnsafeMutableBytes { FrameReversal.copyReversed(from.baseAddress!, to: $0.baseAddress!, frames: frames, frameBytes: frameBytes) }
        }
        once.withUnsafeBytes { from in
            twice.withUnsafeMutableBytes { FrameReversal.copyReversed(from.baseAddress!, to: $0.baseAddress!, frames: frames, frameBytes: frameBytes) }
        }
        #expect(twice == original)
        // The middle frame stays where it is; the first is last.
        let middle = (frames / 2) * frameBytes
        #expect(once[middle..<(middle + frameBytes)] == original[middle..<(middle + frameBytes)])
        #expect(Array(once.suffix(frameBytes)) == Array(original.prefix(frameBytes)))
    }
}
