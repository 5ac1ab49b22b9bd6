import Foundation
import Testing
import TestSupport
@testable import ReverseAudio

/// Waveforms read a whole file: on several threads (segments decoded side by side, measured in
/// order) the data files and the picture are byte for byte those of one continuous decode.
@Suite(.runsProcesses) struct WaveformThreadsTests {
    static func input() async throws -> URL {
        try await SignalFiles.shared("two-minutes.mp3", seconds: 120, codecArguments: ["-c:a", "libmp3lame", "-b:a", "128k"])
    }

    @Test("audiowaveform data at five zoom levels, mixed and split, 8 and 16 bits: the same bytes on 1 and 2 threads",
          arguments: [(false, 16), (true, 8)])
    func data(_ split: Bool, _ bits: Int) async throws {
        let directory = try TemporaryDirectory()
        var files: [Int: [Data]] = [:]
        for threads in [1, 2] {
            let outputs = [256, 512, 1024, 2048, 4096].map {
                WaveformData.Output(directory.file("t\(threads)-\($0).\($0 == 1024 ? "json" : "dat")"), zoom: .samplesPerPixel($0))
            }
            let written = try await WaveformData.write(try Self.input(), to: outputs, bits: bits, splitChannels: split, threads: threads)
            #expect(written.frames == 120 * 44100)
            files[threads] = try outputs.map { try Data(contentsOf: $0.url) }
        }
        #expect(files[2] == files[1])
    }

    @Test("a picture (with a range): the same PNG on 1 and 2 threads")
    func picture() async throws {
        let directory = try TemporaryDirectory()
        var pictures: [Data] = []
        for threads in [1, 2] {
            let output = directory.file("w\(threads).png")
            try await Waveform.draw(try Self.input(), to: output, width: 800, height: 200,
                              range: try TimeRange(start: .seconds(3.5), end: .seconds(110)), threads: threads, cancellation: nil)
            pictures.append(try Data(contentsOf: output))
        }
        #expect(pictures[0] == pictures[1])
    }
}
