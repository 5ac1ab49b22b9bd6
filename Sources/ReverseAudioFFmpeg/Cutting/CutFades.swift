import Foundation
import ReverseAudioCore

/// The fades of a copied cut (`trim --fade-in D --fade-out D`): the frames under them are
/// encoded again, every other frame is copied. The faded samples are the ones a decode of the
/// whole cut through the chain with the same ``Fade`` effects gives, so a copied cut and a
/// re-encoded one fade alike.
package struct CutFades {
    /// The fade at the start: its frames at the input's rate, its curve.
    package var fadeIn: (frames: Int64, shape: Fade.Shape)?
    /// The fade at the end.
    package var fadeOut: (frames: Int64, shape: Fade.Shape)?

    /// No fades: a plain copy.
    package static let none = CutFades()

    package init(fadeIn: (frames: Int64, shape: Fade.Shape)? = nil, fadeOut: (frames: Int64, shape: Fade.Shape)? = nil) {
        self.fadeIn = fadeIn.flatMap { $0.frames > 0 ? $0 : nil }
        self.fadeOut = fadeOut.flatMap { $0.frames > 0 ? $0 : nil }
    }

    /// True when there is no fade.
    package var isEmpty: Bool { fadeIn == nil && fadeOut == nil }

    /// The effects, as the chain applies them.
    var effects: [any AudioEffect] {
        (fadeIn.map { [Fade(.in, length: .frames($0.frames), shape: $0.shape)] } ?? [])
            + (fadeOut.map { [Fade(.out, length: .frames($0.frames), shape: $0.shape)] } ?? [])
    }

    /// "3 frames re-encoded under the fade-in, 2 under the fade-out" (`unit`: "frames", "packets").
    package static func reencodedText(head: Int, tail: Int, unit: String = "frames") -> String {
        switch (head > 0, tail > 0) {
        case (true, true): return "\(head) \(unit) re-encoded under the fade-in, \(tail) under the fade-out"
        case (true, false): return "\(head) \(unit) re-encoded under the fade-in"
        case (false, true): return "\(tail) \(unit) re-encoded under the fade-out"
        case (false, false): return "no \(unit.dropLast()) re-encoded"
        }
    }
}

/// The decoded samples of a cut of a file as 32-bit float, interleaved, read at any frames of
/// the cut's timeline, faded or not: what a cut's re-encoded frames encode, and what a check
/// of a faded copy compares with.
final class CutSamples {
    private let source: any PCMSource
    /// Frames in the cut (`Int64.max` for all of a file).
    let count: Int64
    let channels: Int
    private var next: Int64 = -1

    /// The frames `range` of `url`'s gapless decode (nil: all of it), with `effects`.
    init(_ url: URL, range: Range<Int64>?, effects: [any AudioEffect], cancellation: CancellationFlag) throws {
        let recipe = ChainRecipe(range: try range.map { try TimeRange(start: .frames($0.lowerBound), end: .frames($0.upperBound)) },
                                 sampleFormat: .f32, effects: effects)
        source = try AudioChain(url: url, recipe: recipe, cancellation: cancellation).source
        count = range.map { Int64($0.count) } ?? .max
        channels = source.format.channelCount
    }

    /// The interleaved samples of frames `frames` of the cut; frames outside it are silence.
    func samples(_ frames: Range<Int64>) throws -> [Float] {
        var result = [Float](repeating: 0, count: frames.count * channels)
        let inside = max(0, frames.lowerBound)..<min(count, max(0, frames.upperBound))
        guard !inside.isEmpty else { return result }
        if next != inside.lowerBound { try source.seek(to: inside.lowerBound, endingAt: nil) }
        var position = inside.lowerBound
        while position < inside.upperBound, let chunk = try source.read(maximumFrames: Int(min(4096, inside.upperBound - position))) {
            let offset = Int(chunk.position - frames.lowerBound) * channels
            result.withUnsafeMutableBytes { target in
                target.baseAddress!.advanced(by: offset * MemoryLayout<Float>.size).copyMemory(from: chunk.bytes.baseAddress!,
                                                                                             byteCount: chunk.frameCount * channels * MemoryLayout<Float>.size)
            }
            position = chunk.position + Int64(chunk.frameCount)
        }
        next = position
        return result
    }

    /// Reads on in order from where the last read stopped (or from `frame`), lending each chunk.
    func forEachChunk(from frame: Int64, _ body: (PCMChunk) throws -> Void) throws {
        if next != frame { try source.seek(to: frame, endingAt: nil) }
        while let chunk = try source.read(maximumFrames: 4096) {
            try body(chunk)
            next = chunk.position + Int64(chunk.frameCount)
        }
    }
}
