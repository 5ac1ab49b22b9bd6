import Foundation
import ReverseAudioCore

/// The check a cut with fades passes before it is kept: the file written decodes to the cut's
/// length, and to the input's own samples (bit for bit, as 32-bit float) outside the frames the
/// fades made the cut encode again: the continuous decode's for MP3, a decode of the copied
/// packets from the first for AAC (``CopiedPacketSamples``).
enum FadedCutCheck {
    /// Nil when `written` passes; else what is wrong.
    /// - Parameters:
    ///   - range: the cut, in frames of `input`'s gapless decode.
    ///   - exact: the frames of the cut (counted from its start) that must be the input's.
    ///   - lengths: the lengths a decode may have (FFmpeg decodes an MP4's last packet whole).
    ///   - reference: the input's samples at frames of the cut, asked for in order; nil for
    ///     its continuous decode.
    static func mismatch(_ written: URL, input: URL, range: Range<Int64>, exact: Range<Int64>, lengths: Set<Int64>? = nil,
                         reference: ((Range<Int64>) throws -> [Float])? = nil, cancellation: CancellationFlag) throws -> String? {
        let ours: CutSamples
        do {
            ours = try CutSamples(written, range: nil, effects: [], cancellation: cancellation)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return "the file written does not decode: \(error)"
        }
        let expectedSamples: (Range<Int64>) throws -> [Float]
        if let reference {
            expectedSamples = reference
        } else {
            let original = try CutSamples(input, range: range, effects: [], cancellation: cancellation)
            expectedSamples = { try original.samples($0) }
        }
        var decoded: Int64 = 0
        var differs = false
        try ours.forEachChunk(from: 0) { chunk in
            if cancellation.isCancelled { throw CancellationError() }
            let frames = chunk.position..<(chunk.position + Int64(chunk.frameCount))
            decoded = frames.upperBound
            let from = max(frames.lowerBound, exact.lowerBound)
            let overlap = from..<max(from, min(frames.upperBound, exact.upperBound))
            guard !overlap.isEmpty, !differs else { return }
            let expected = try expectedSamples(overlap)
            let offset = Int(overlap.lowerBound - frames.lowerBound) * ours.channels * MemoryLayout<Float>.size
            // Bit for bit: the bytes compared.
            differs = expected.withUnsafeBytes { wanted in
                memcmp(chunk.bytes.baseAddress!.advanced(by: offset), wanted.baseAddress!, wanted.count) != 0
            }
        }
        if differs { return "the frames copied beside the fades do not decode as in the input" }
        guard (lengths ?? [Int64(range.count)]).contains(decoded) else {
            return "the file written does not decode to the cut's length"
        }
        return nil
    }
}
