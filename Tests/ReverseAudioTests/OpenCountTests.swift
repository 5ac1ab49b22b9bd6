import Foundation
import Testing
import TestSupport
@testable import ReverseAudio

/// A reversal on T threads opens its input at most T times (any open of the file, FFmpeg's or
/// ours, counted by inotify): one open finds the length, decodes, and takes segments; each
/// other thread opens it once more (and the first to seek in an MP3 indexes its packets for
/// all). Into an encoder (FLAC) and straight into a WAV. One test at a time: the counter sees
/// every open of a file, and the tests share their inputs.
@Suite(.enabled(if: OpenCounter.isAvailable), .serialized, .runsProcesses) struct OpenCountTests {
    /// Inputs long enough to be split (more than two segments of 65,536 frames), one a family.
    static let inputs: [(name: String, codec: [String])] = [
        ("opens.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
        // No tag frame: the length is counted, on the open that looked for the tag.
        ("opens-untagged.mp3", ["-c:a", "libmp3lame", "-b:a", "128k", "-write_xing", "0"]),
        ("opens.flac", ["-c:a", "flac"]),
        ("opens.wav", ["-c:a", "pcm_s16le"]),
        ("opens.m4a", ["-c:a", "aac", "-b:a", "128k"]),
        ("opens-alac.m4a", ["-c:a", "alac"]),
        ("opens.aac", ["-c:a", "aac", "-b:a", "128k", "-f", "adts"]),
    ]

    @Test("the counter sees every open that reads, while others are open")
    func counterCounts() throws {
        let input = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")
        let (opens, _) = try OpenCounter.count(input) {
            var handles: [FileHandle] = []
            for _ in 0..<3 {
                let handle = try FileHandle(forReadingFrom: input)
                _ = try handle.read(upToCount: 4)
                handles.append(handle)
            }
            for handle in handles { try handle.close() }
        }
        #expect(opens == 3)
    }

    @Test("a T-thread reversal opens its input at most T times, and at least once a thread that decodes",
          arguments: inputs.map(\.name))
    func reversalOpens(_ name: String) async throws {
        let codec = try #require(Self.inputs.first { $0.name == name }?.codec)
        let input = try await SignalFiles.shared(name, seconds: 12, codecArguments: codec)
        let folder = try TemporaryDirectory()
        for threads in [1, 2, 3] {
            for output in ["out.flac", "out.wav"] {
                let (opens, result) = try OpenCounter.count(input) {
                    try AudioConverter.convert(input, to: folder.file(output),
                                               options: ConversionOptions(reverse: true, overwrite: true, threads: threads),
                                               cancellation: CancellationFlag(), progress: nil)
                }
                #expect(opens <= threads, "\(name) → \(output) on \(threads) threads: opened \(opens) times")
                #expect(opens >= result.decodeThreads, "\(name): \(result.decodeThreads) threads decoded on \(opens) opens")
                #expect(try await FFmpegOracle.samples(of: folder.file(output)) == FFmpegOracle.reversedSamples(of: input))
            }
        }
    }

    // An MP3's length is a pass over every packet unless its tag states it: a range must not pay
    // for it. A WAV's, an M4A's or a FLAC's (the container's statement, checked) is found on the
    // open that decodes: a first seek finds it before anything is delivered.
    @Test("a range opens its input once, the progress bar's length callback included, which is told the range's seconds (no pass over the whole file for its length, no open of its own for it)",
          arguments: inputs.map(\.name))
    func rangeOpensOnce(_ name: String) async throws {
        let codec = try #require(Self.inputs.first { $0.name == name }?.codec)
        let input = try await SignalFiles.shared(name, seconds: 12, codecArguments: codec)
        let folder = try TemporaryDirectory()
        let told = ToldSeconds()
        var options = ConversionOptions(overwrite: true, range: try TimeRange(start: .seconds(6), duration: .seconds(1)), threads: 2)
        options.opened = { seconds in told.append(seconds) }
        let (opens, result) = try OpenCounter.count(input) {
            try AudioConverter.convert(input, to: folder.file("range.wav"), options: options, cancellation: CancellationFlag(), progress: nil)
        }
        #expect(opens == 1, "\(name): a 1-second range opened its input \(opens) times")
        #expect(result.frames == 44_100)
        #expect(told.values == [1.0], "\(name): told \(told.values)")
    }

    // The length is found on the open that decodes: an MP3's packets are counted, then read
    // again from the first by a byte seek, whose estimated timestamps made the demuxer insert
    // every packet into the middle of its own index (a tenth of a one-thread decode of 30
    // minutes, and 3 MB an hour); on one thread nothing seeks, so no index of ours is kept.
    @Test("an MP3 counted and decoded on one open keeps no index of its packets in the demuxer, forwards or reversed",
          arguments: [false, true])
    func countedOpenKeepsNoDemuxerIndex(_ reversed: Bool) async throws {
        let codec = try #require(Self.inputs.first { $0.name == "opens-untagged.mp3" }?.codec)
        let input = try await SignalFiles.shared("opens-untagged.mp3", seconds: 12, codecArguments: codec)
        let chain = try TestDecode.chain(input, reversed: reversed)
        let read = reversed ? TestDecode.reversal(chain.source) : chain.source
        #expect(try TestDecode.frames(of: read) > 500_000)
        let file = chain.file.openedInput
        let entries = file.demuxer.indexEntryCount(stream: file.streamIndex)
        // 4 KiB of index entries at most (about 170), against one a packet (about 460 here).
        #expect(entries < 200, "the demuxer indexed \(entries) packets")
    }
}

/// What a conversion's `opened` callback was told, from whichever thread told it.
private final class ToldSeconds: @unchecked Sendable {
    // @unchecked: `told` is only touched under `lock`.
    private let lock = NSLock()
    private var told: [Double?] = []
    func append(_ seconds: Double?) { lock.withLock { told.append(seconds) } }
    var values: [Double?] { lock.withLock { told } }
}
