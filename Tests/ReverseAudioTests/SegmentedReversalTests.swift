import Foundation
import Testing
import TestSupport
import ReverseAudioTesting
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg

/// Segment-parallel reversal: an input decoded on several threads, each segment from its own
/// exact seek, gives the single-threaded reversal byte for byte (and so `ffmpeg -af areverse`),
/// with seams wherever they fall: 2, 3 and 7 segments, a 1-frame segment, seams a granule into
/// an MP3 frame (inside the bit reservoir's reach). What cannot be done exactly in parallel
/// (AAC, damage, a misstated length) falls back to one thread with the same result.
@Suite(.runsProcesses) struct SegmentedReversalTests {
    struct Reversal {
        let bytes: [UInt8]
        let threadsUsed: Int
        let reason: OneReaderReason?
        let warnings: [ReverseAudioWarning]
        let lengthSource: LengthSource?
    }

    /// `url` decoded to 16-bit and reversed, on `threads` threads with seams at `seams(N)`.
    static func reverse(_ url: URL, threads: Int, seams: (@Sendable (Int64) -> [Int64])? = nil,
                        cancellation: CancellationFlag? = nil) throws -> Reversal {
        // Opened for a reversal on `threads` threads, as `convert --reverse` opens it (a FLAC
        // file's positions are then checked by its readers, not scanned first).
        let chain = try TestDecode.chain(url, reversed: true, cancellation: cancellation ?? CancellationFlag(), threads: threads)
        chain.splitsStoredSamples = true
        var scheduler = Scheduler(threads: threads, cancellation: cancellation)
        scheduler.segmentBoundaries = seams
        let (input, _) = try chain.job(threads: threads, scheduler: scheduler)
        let sink = MemorySink(format: chain.source.format)
        let report = try scheduler.mirror(input, into: sink, progress: nil)
        return Reversal(bytes: sink.bytes, threadsUsed: report.threadsUsed, reason: report.singleThreadReason, warnings: chain.warnings,
                        lengthSource: report.lengthSource)
    }

    /// Seams at `fractions` of the length, plus 0 and N, increasing and unique.
    static func seams(_ fractions: [Double]) -> @Sendable (Int64) -> [Int64] {
        { total in Array(Set([0, total] + fractions.map { Int64(Double(total) * $0) }.filter { $0 > 0 && $0 < total })).sorted() }
    }

    /// Where the seams go.
    enum Layout: CaseIterable, Sendable {
        case two, three, seven, oneFrameSegment, insideMP3Frames

        func seams(_ total: Int64) -> [Int64] {
            switch self {
            case .two: return SegmentedReversalTests.seams([0.5])(total)
            case .three: return SegmentedReversalTests.seams([1.0 / 3, 2.0 / 3])(total)
            case .seven: return SegmentedReversalTests.seams((1..<7).map { Double($0) / 7 })(total)
            case .oneFrameSegment: return total > 2 ? [0, total / 2, total / 2 + 1, total] : [0, total]
            case .insideMP3Frames:
                // 1152-sample MP3 frames of two 576-sample granules: seams one granule and one
                // sample into frames, where the first frames kept need reservoir bytes of those before.
                let inside: [Int64] = [1152 * 3 + 577, 1152 * 7 + 1, 1152 * 20 + 576]
                let within = inside.filter { $0 < total }
                return within.isEmpty ? [0, 1152 + 577, total] : [0] + within + [total]
            }
        }
    }

    /// Inputs whose decode restarts bit-exactly anywhere: split for real.
    static let splittable = Fixtures.matrix.filter { name in
        !name.hasPrefix("m4a-aac") && !name.hasPrefix("adts") && !name.hasPrefix("m4r")
            && !name.hasPrefix("opus-") && !name.hasPrefix("ogg-") && !name.hasPrefix("webm-")
    }

    @Test("every seam layout gives the one-thread reversal and areverse, byte for byte", arguments: splittable)
    func seamsAreExact(_ name: String) async throws {
        let url = Fixtures.url(name)
        let single = try Self.reverse(url, threads: 1)
        let oracle = try await FFmpegOracle.reversedSamples(of: url).withUnsafeBytes { Array($0) }
        #expect(single.bytes == oracle, "\(name): the one-thread reversal is not areverse's")
        for layout in Layout.allCases {
            for threads in [2, 3] {
                let parallel = try Self.reverse(url, threads: threads, seams: { layout.seams($0) })
                #expect(parallel.bytes == single.bytes, "\(name), \(layout), \(threads) threads: differs from one thread")
                #expect(parallel.threadsUsed > 1, "\(name), \(layout): decoded on one thread: \(String(describing: parallel.reason))")
                #expect(parallel.warnings == single.warnings)
            }
        }
    }

    @Test("AAC (noise substitution), damaged and misstated inputs fall back to one thread, with the same result and warnings",
          arguments: ["m4a-aac-2ch-44100.m4a", "adts-aac-2ch-44100.aac", "m4a-aac-nopns-2ch-44100.m4a", "bad-truncated-30pct.flac",
                      "bad-truncated-30pct.mp3", "bad-flac-cut-short.flac", "edge-wrong-length-long.flac", "edge-wav-header-overstates.wav",
                      "edge-mp3-concatenated.mp3", "edge-lame-short-v9.mp3", "edge-one-frame.flac", "opus-2ch-48000.opus",
                      "ogg-vorbis-2ch-44100.ogg", "webm-opus-2ch-48000.webm"])
    func fallsBack(_ name: String) throws {
        let url = Fixtures.url(name)
        let single = try Self.reverse(url, threads: 1)
        let parallel = try Self.reverse(url, threads: 3, seams: Self.seams([0.25, 0.5, 0.75]))
        #expect(parallel.bytes == single.bytes, "\(name): differs from one thread")
        #expect(parallel.warnings == single.warnings, "\(name): \(parallel.warnings) against \(single.warnings)")
        if name.contains("aac") {
            #expect(parallel.threadsUsed == 1 && { if case .seekNotBitExact? = parallel.reason { true } else { false } }(), "\(name): \(String(describing: parallel.reason))")
        }
    }

    /// A FLAC file of `name`'s packets in the order `order` gives (indexes into its packets),
    /// after its header: frames copied into the stream, as a splicing tool or damage leaves them.
    static func reorderedFLAC(_ name: String, in directory: TemporaryDirectory, order: ([Int]) -> [Int]) async throws -> URL {
        // Encoded again in frames of 576 samples: some 75 packets a second, room to move them.
        let source = directory.file("\(name)-576.flac")
        let encoded = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-y", "-i", Fixtures.url(name).path,
                                                       "-c:a", "flac", "-frame_size", "576", source.path])
        guard encoded.status == 0 else { throw FFmpegOracle.Failure(description: encoded.errorText) }
        // ffprobe prints a packet's size before its position, whatever order they are asked in.
        let listing = try await ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size,pos",
                                                        "-of", "csv=p=0", source.path])
        let packets = listing.outputText.split(separator: "\n").compactMap { line -> (position: Int, size: Int)? in
            let fields = line.split(separator: ",").compactMap { Int($0) }
            return fields.count == 2 ? (position: fields[1], size: fields[0]) : nil
        }
        let bytes = try [UInt8](Data(contentsOf: source))
        var out = Array(bytes[0..<packets[0].position])
        for index in order(Array(packets.indices)) { out += bytes[packets[index].position..<(packets[index].position + packets[index].size)] }
        let url = directory.file("\(name)-reordered-\(UUID().uuidString).flac")
        try Data(out).write(to: url)
        return url
    }

    @Test("FLAC whose timestamps are not the decode's positions (a run of frames repeated, a frame copied in, two files joined), reversed on readers that check them as they decode: the one continuous decode, every seam layout")
    func irregularFLAC() async throws {
        let directory = try TemporaryDirectory()
        let name = "flac-s16-2ch-44100.flac"
        let inputs = await [
            // Frames 30…39 again after frame 39: each timestamp of the run is met twice, so a seek
            // may land on either copy; the readers' marks must show the segments do not meet.
            try Self.reorderedFLAC(name, in: directory) { Array($0[0..<40] + $0[30..<40] + $0[40...]) },
            try await Self.reorderedFLAC(name, in: directory) { Array($0[0..<50] + [$0[5]] + $0[50...]) },
            Fixtures.url("edge-flac-concatenated.flac"),
        ]
        for url in inputs {
            let oracle = try await FFmpegOracle.reversedSamples(of: url).withUnsafeBytes { Array($0) }
            let single = try Self.reverse(url, threads: 1)
            #expect(single.bytes == oracle, "\(url.lastPathComponent): the one-thread reversal is not areverse's")
            for layout in Layout.allCases {
                let parallel = try Self.reverse(url, threads: 2, seams: { layout.seams($0) })
                #expect(parallel.bytes == oracle, "\(url.lastPathComponent), \(layout): differs from areverse")
                #expect(parallel.warnings == single.warnings, "\(url.lastPathComponent), \(layout)")
            }
            for fraction in stride(from: 0.05, to: 1.0, by: 0.05) {
                let parallel = try Self.reverse(url, threads: 2, seams: Self.seams([fraction]))
                #expect(parallel.bytes == oracle, "\(url.lastPathComponent), a seam at \(fraction): differs from areverse")
            }
        }
    }

    /// `source`'s packets (position and size, from ffprobe), in the file's order.
    static func packets(of source: URL) async throws -> [(position: Int, size: Int)] {
        // ffprobe prints a packet's size before its position, whatever order they are asked in.
        let listing = try await ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size,pos",
                                                        "-of", "csv=p=0", source.path])
        return listing.outputText.split(separator: "\n").compactMap { line -> (position: Int, size: Int)? in
            let fields = line.split(separator: ",").compactMap { Int($0) }
            return fields.count == 2 ? (position: fields[1], size: fields[0]) : nil
        }
    }

    @Test("MP3 with a tag frame (MPEG-1 CBR and VBR, MPEG-2): its length taken from the tag and its packets indexed by the first reader to seek, every seam layout exact; a tag whose frame count is wrong, though its byte count and last frames bear it out, falls back to one thread with the same result")
    func taggedMP3() async throws {
        let directory = try TemporaryDirectory()
        let inputs = await [
            try SignalFiles.shared("seams-cbr.mp3", seconds: 8, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"]),
            try SignalFiles.shared("seams-vbr.mp3", seconds: 8, codecArguments: ["-c:a", "libmp3lame", "-q:a", "9"]),
            try SignalFiles.shared("seams-mpeg2.mp3", seconds: 8, codecArguments: ["-ar", "22050", "-c:a", "libmp3lame", "-b:a", "64k"]),
        ]
        for url in inputs {
            let name = url.lastPathComponent
            let oracle = try await FFmpegOracle.reversedSamples(of: url).withUnsafeBytes { Array($0) }
            let single = try Self.reverse(url, threads: 1)
            #expect(single.bytes == oracle, "\(name): the one-thread reversal is not areverse's")
            #expect(single.lengthSource == .packets, "\(name): one thread counts the packets")
            let layouts = Layout.allCases.map { layout in (String(describing: layout), { @Sendable (total: Int64) in layout.seams(total) }) }
                + stride(from: 0.05, to: 1.0, by: 0.1).map { ("a seam at \($0)", Self.seams([$0])) }
            for (layout, seams) in layouts {
                let parallel = try Self.reverse(url, threads: 2, seams: seams)
                #expect(parallel.bytes == oracle, "\(name), \(layout): differs from areverse")
                #expect(parallel.threadsUsed == 2, "\(name), \(layout): \(String(describing: parallel.reason))")
                #expect(parallel.lengthSource == .container, "\(name), \(layout): the length was not the tag's")
                #expect(parallel.warnings == single.warnings, "\(name), \(layout)")
            }
        }
        // Ten frames repeated in the middle, and the tag's byte count (not its frame count) made
        // to cover them: the tag's length is ten frames short, though the stream's last frame
        // ends where it says. The shared index counts otherwise.
        let source = inputs[0]
        let packets = try await Self.packets(of: source)
        var bytes = try [UInt8](Data(contentsOf: source))
        let run = packets[100].position..<packets[110].position
        bytes.insert(contentsOf: Array(bytes[run]), at: run.upperBound)
        let header = try #require((0..<(packets[0].position - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("Xing".utf8) || bytes[$0..<($0 + 4)].elementsEqual("Info".utf8) })
        let countAt = header + 12  // after the marker, the flags and the frame count: the byte count
        let count = bytes[countAt..<(countAt + 4)].reduce(0) { $0 << 8 | Int($1) } + run.count
        for offset in 0..<4 { bytes[countAt + offset] = UInt8(truncatingIfNeeded: count >> (8 * (3 - offset))) }
        let misstated = directory.file("misstated-frames.mp3")
        try Data(bytes).write(to: misstated)
        let oracle = try await FFmpegOracle.reversedSamples(of: misstated).withUnsafeBytes { Array($0) }
        let single = try Self.reverse(misstated, threads: 1)
        #expect(single.bytes == oracle)
        for fractions in [[0.5], [0.2, 0.4, 0.6, 0.8]] {
            let parallel = try Self.reverse(misstated, threads: 2, seams: Self.seams(fractions))
            #expect(parallel.bytes == oracle, "misstated frame count, seams at \(fractions)")
            #expect(parallel.threadsUsed == 1, "misstated frame count, seams at \(fractions): decoded on \(parallel.threadsUsed) threads")
            #expect(parallel.warnings == single.warnings)
        }
    }

    @Test("into an encoder (FLAC) as into WAV, a tagged MP3 reversed on two threads says its length came from the tag")
    func taggedMP3IntoEncoder() async throws {
        let directory = try TemporaryDirectory()
        let url = try await SignalFiles.shared("seams-cbr.mp3", seconds: 8, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
        for name in ["reversed.wav", "reversed.flac"] {
            let result = try await AudioConverter.convert(url, to: directory.file(name), options: ConversionOptions(reverse: true, threads: 2))
            #expect(result.decodeThreads == 2, "\(name)")
            #expect(result.lengthSource == .container, "\(name): \(result.lengthSource)")
            await #expect(result.frames == Int64(try FFmpegOracle.samples(of: url).count / 2), "\(name)")
        }
    }

    /// A sink that takes frames in order (an encoder's place), slow on its first write so the
    /// placement behind it completes meanwhile, and cancelling on its second.
    final class SlowInOrderSink: PCMSink {
        let format: PCMFormat
        let cancellation: CancellationFlag
        var writes = 0
        init(format: PCMFormat, cancellation: CancellationFlag) {
            self.format = format
            self.cancellation = cancellation
        }
        func write(_ chunk: PCMChunk) throws {
            writes += 1
            if writes == 1 { Thread.sleep(forTimeInterval: 0.5) }
            if writes == 2 { cancellation.cancel() }
        }
        func finish() throws {}
        func cancel() {}
        var canStartOver: Bool { true }
        func startOver(expectingFrames frames: Int64) throws {}
    }

    @Test("a reversal into a sink that takes frames in order stops at its next chunk when cancelled after the placement on several threads is complete")
    func cancellationAfterPlacement() async throws {
        let url = try await SignalFiles.shared("seams-cbr.mp3", seconds: 8, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
        let flag = CancellationFlag()
        let chain = try TestDecode.chain(url, reversed: true, cancellation: flag, threads: 2)
        let scheduler = Scheduler(threads: 2, cancellation: flag)
        let (input, _) = try chain.job(threads: 2, scheduler: scheduler)
        let sink = SlowInOrderSink(format: chain.source.format, cancellation: flag)
        #expect(throws: CancellationError.self) { _ = try scheduler.transfer(input, reversed: true, into: sink) }
        #expect(sink.writes == 2, "\(sink.writes) chunks were written after the cancellation")
    }

    @Test("segments: eight a thread, the last taken cut in four, none shorter than the minimum, tiling the stream")
    func boundaries() {
        // Sixteen equal segments, the two taken last in four pieces each: nineteen.
        let hour = SegmentedPlacement.boundaries(totalFrames: 44_100 * 3600, threads: 2)
        #expect(hour.count == 16 + 6 + 1)
        let sixteenth = Int64(44_100 * 3600 / 16)
        #expect(hour[14] == 14 * sixteenth && hour[15] == 14 * sixteenth + sixteenth / 4 && hour.last == 44_100 * 3600)
        let followed = SegmentedPlacement.boundaries(totalFrames: 44_100 * 3600, threads: 2, lastSegmentFirst: true)
        #expect(followed.count == 23 && followed[1] == sixteenth / 4 && followed[8] == 2 * sixteenth && followed[9] == 3 * sixteenth)
        #expect(SegmentedPlacement.boundaries(totalFrames: 100_000, threads: 8) == [0, 100_000])
        for lastSegmentFirst in [false, true] {
            let edges = SegmentedPlacement.boundaries(totalFrames: 1_000_003, threads: 3, lastSegmentFirst: lastSegmentFirst)
            #expect(edges.first == 0 && edges.last == 1_000_003 && zip(edges, edges.dropFirst()).allSatisfy { $1 - $0 >= SegmentedPlacement.minimumSegmentFrames })
        }
    }
}
