import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// Compositions of lossless inputs through the library, in process: 100 per fixture format
/// (cuts of 1 frame, at the very start and the very end, random ones, and every tenth a cut,
/// silence and a reversed cut), each written in the input's own format. All 100 outputs are
/// decoded by one ffmpeg process (the concat filter) and must equal, byte for byte at the
/// native sample format, the slices of one ffmpeg decode of the input.
@Suite(.runsProcesses) struct EditOracleTests {
    /// 100 compositions for a file of `frames` frames, and the bytes each must decode to.
    static func plans(_ source: NativePCM, url: URL, seed: UInt64) throws -> [(pieces: [CompositionPiece], expected: [UInt8])] {
        let frames = source.frames
        var generator = SplitMix(seed: seed)
        func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(max(bound, 1))) }
        func range(maximum: Int) -> Range<Int> {
            let start = random(frames)
            return start..<min(frames, start + 1 + random(maximum))
        }
        func piece(_ range: Range<Int>, reversed: Bool = false) throws -> CompositionPiece {
            .file(url, range: try TimeRange(start: .frames(Int64(range.lowerBound)), end: .frames(Int64(range.upperBound))),
                  reversed: reversed)
        }
        var cuts: [Range<Int>] = [0..<1, 0..<frames, (frames - 1)..<frames, (frames / 2)..<(frames / 2 + 1), 0..<min(frames, 4096),
                                  max(0, frames - 4096)..<frames]
        var result: [(pieces: [CompositionPiece], expected: [UInt8])] = []
        for cut in cuts { result.append(([try piece(cut)], source.slice(cut))) }
        while result.count < 100 {
            if result.count % 10 == 9 {
                let (first, second, gap) = (range(maximum: 3000), range(maximum: 3000), random(500) + 1)
                result.append(([try piece(first), .silence(.frames(Int64(gap))), try piece(second, reversed: true)],
                               source.slice(first) + source.silence(gap) + source.reversedSlice(second)))
            } else {
                let cut = range(maximum: frames / 2)
                cuts.append(cut)
                result.append(([try piece(cut)], source.slice(cut)))
            }
        }
        return result
    }

    @Test("100 cuts and compositions per lossless format decode to the exact slices, in the input's sample format",
          arguments: Fixtures.lossless)
    func hundredCuts(_ name: String) async throws {
        let input = Fixtures.url(name)
        let source = try await NativePCM.decode(input)
        try #require(source.frames > 1)
        let directory = try TemporaryDirectory()
        var outputs: [URL] = []
        var expected: [UInt8] = []
        for (index, plan) in try Self.plans(source, url: input, seed: UInt64(name.utf8.reduce(7) { $0 &* 31 &+ UInt64($1) })).enumerated() {
            let output = directory.file("\(index).\(input.pathExtension)")
            let result = try Composition(pieces: plan.pieces).write(to: output, cancellation: CancellationFlag())
            #expect(result.frames * Int64(source.frameBytes) == Int64(plan.expected.count), "\(name) #\(index)")
            #expect(result.paths.allSatisfy { $0.hasPrefix("copied") || $0 == "silence" }, "\(name) #\(index): \(result.paths)")
            outputs.append(output)
            expected += plan.expected
        }
        let decoded = try await NativePCM.decodeConcatenated(outputs)
        #expect(decoded.bytes.count == expected.count, "\(name): \(decoded.bytes.count) bytes, expected \(expected.count)")
        if decoded.bytes != expected, let first = zip(decoded.bytes, expected).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("\(name): first difference at frame \(first.offset / source.frameBytes) of the concatenated outputs")
        }
        for output in [outputs[0], outputs[2], outputs[99]] {
            let written = try await NativePCM.decode(output)
            #expect(written.format == source.format && written.bits == source.bits,
                    "\(name): \(output.lastPathComponent) is \(written.format)/\(written.bits ?? "-"), not \(source.format)/\(source.bits ?? "-")")
        }
    }
}
