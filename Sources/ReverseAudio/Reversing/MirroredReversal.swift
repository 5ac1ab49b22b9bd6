import Foundation

/// A whole reversal: one continuous forward decode whose reversed blocks go to their mirrored
/// positions in a sink, checked against the length that was expected.
///
/// The sink is made when the first block is decoded (only then is the output format known). If
/// the decode ends at another length than expected (a container that misstates its length),
/// that sink is discarded and the file is decoded once more, now knowing the true length.
struct MirroredReversal<Sink: ReversedFrameSink> {
    struct Outcome {
        /// The decoder of the pass that succeeded: output format, warnings, frames decoded.
        let decoder: PCMDecoder
        /// Holds the reversed audio; nil when the input has no audio at all.
        let sink: Sink?
        let frames: Int64
        /// Frames per block; nil only for empty audio without a requested size.
        let blockFrames: Int?
        let passes: Int
        /// Where the length came from: the prediction when it held, the decode otherwise.
        let lengthSource: LengthSource
    }

    /// Frames per block; nil means the first decoded buffer's frame count (the seed's choice).
    let blockFrames: Int?
    let isCancelled: @Sendable () -> Bool
    /// Opens the decoder of one pass (channels, sample format and rate as the output needs).
    let makeDecoder: (AudioSource) throws -> PCMDecoder
    /// Creates the sink for an output of `totalFrames` frames once `decoder` knows its format.
    let makeSink: (_ decoder: PCMDecoder, _ totalFrames: Int64) throws -> Sink
    /// Abandons a sink that will not be used (wrong length, or an error).
    let discard: (Sink) -> Void

    /// Reverses `source`, expecting `predicted` frames (nil: the first pass only counts them).
    func run(_ source: AudioSource, predicted: (frames: Int64, source: LengthSource)?,
             progress: ProgressHandler?) throws -> Outcome {
        var expected = predicted?.frames ?? 0
        var lengthSource = predicted?.source ?? .decode
        var source = source
        // Without a prediction the first pass only counts: it gets the first half of the progress.
        var passProgress = progress.map { whole in stage(whole, from: 0, to: predicted == nil ? 0.5 : 1) }
        for pass in 1...2 {
            let decoder = try makeDecoder(source)
            let (sink, placement) = try decode(decoder, expecting: expected, progress: passProgress)
            let decoded = placement?.sourceFrames ?? 0
            if decoded == expected {
                return Outcome(decoder: decoder, sink: sink, frames: decoded,
                               blockFrames: placement?.blockFrames ?? blockFrames ?? decoder.firstBufferFrameCount,
                               passes: pass, lengthSource: lengthSource)
            }
            sink.map(discard)
            if pass == 2 {
                throw ReverseAudioError.decodingFailed(
                    path: source.url.displayPath, reason: "two decodes gave different lengths (\(expected) and \(decoded) frames)")
            }
            expected = decoded
            lengthSource = .decode
            source = try AudioSource(url: source.url, isCancelled: isCancelled)
            passProgress = progress.map { whole in stage(whole, from: predicted == nil ? 0.5 : 0, to: 1) }
        }
        throw ReverseAudioError.decodingFailed(path: source.url.displayPath, reason: "no decode pass finished")
    }

    /// Maps one pass's progress into its share of the whole.
    private func stage(_ whole: @escaping ProgressHandler, from start: Double, to end: Double) -> ProgressHandler {
        { fraction in whole(start + (end - start) * min(max(fraction, 0), 1)) }
    }

    /// One forward decode into a placement for `expected` frames.
    private func decode(_ decoder: PCMDecoder, expecting expected: Int64,
                        progress: ProgressHandler?) throws -> (Sink?, ReversePlacement?) {
        var sink: Sink?
        var placement: ReversePlacement?
        do {
            while try decoder.readChunk({ bytes, frames in
                if placement == nil {
                    let made = try makeSink(decoder, expected)
                    sink = made
                    placement = try ReversePlacement(totalFrames: expected,
                                                     blockFrames: blockFrames ?? decoder.firstBufferFrameCount ?? 1,
                                                     frameBytes: decoder.format.bytesPerFrame, sink: made,
                                                     path: decoder.url.displayPath)
                }
                try placement!.consume(bytes, frames: frames)
                if expected > 0 { progress?(Double(placement!.sourceFrames) / Double(expected)) }
            }) {}
        } catch {
            sink.map(discard)
            throw error
        }
        return (sink, placement)
    }
}
