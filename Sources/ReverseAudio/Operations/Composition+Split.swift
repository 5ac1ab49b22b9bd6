import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

extension Composition {
    /// Splits `input` into pieces that follow one another, each written as `trim` writes a cut:
    /// in the input's own format, its packets copied where the container can state the cut
    /// exactly (an MP3 behind a LAME tag with its bit reservoir repaired, an MP4 behind an edit
    /// list; lossless formats sample for sample), so that the pieces decoded one after another
    /// give exactly the whole file's decode.
    ///
    /// Each piece is written under a temporary name and published whole; when one fails, the
    /// pieces this call already wrote are removed, so a split leaves all its pieces or none.
    /// - Parameters:
    ///   - input: the file to split.
    ///   - starts: where each piece after the first starts, in frames of the input, increasing
    ///     and inside it (the first piece starts at 0, the last ends at the end).
    ///   - outputs: the pieces' files, one more than `starts`, in order.
    ///   - overwrite: replace pieces that exist (else an existing one is an error).
    ///   - progress: fractions of the whole split, in 0...1.
    /// - Returns: each piece's result, in order.
    /// - Throws: `ReverseAudioError` (a start outside the file or out of order is a range
    ///   error), or `CancellationError`.
    public static func split(_ input: URL, at starts: [Int64], to outputs: [URL], overwrite: Bool = false,
                             progress: ProgressHandler? = nil) async throws -> [Result] {
        guard outputs.count == starts.count + 1 else {
            throw ReverseAudioError.range(.invalidRange(reason: "\(starts.count) split points make \(starts.count + 1) pieces, not \(outputs.count)"))
        }
        let bounds = [Int64(0)] + starts
        for (earlier, later) in zip(bounds, bounds.dropFirst()) where later <= earlier {
            throw ReverseAudioError.range(.invalidRange(reason: "split points must increase: frame \(later) comes after frame \(earlier)"))
        }
        var results: [Result] = []
        do {
            for (index, output) in outputs.enumerated() {
                let range = index + 1 < bounds.count
                    ? try TimeRange(start: .frames(bounds[index]), end: .frames(bounds[index + 1]))
                    : try TimeRange(start: .frames(bounds[index]))
                var piece = Composition(pieces: [.file(input, range: range)], overwrite: overwrite)
                let share = 1 / Double(outputs.count)
                piece.progress = progress.map { report in { @Sendable fraction in report((Double(index) + fraction) * share) } }
                results.append(try await piece.write(to: output))
            }
        } catch {
            for written in results { try? FileManager.default.removeItem(at: written.output) }
            throw error
        }
        progress?(1)
        return results
    }
}
