import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The original app's API, for code ported from it: reverse a file to a WAV with a progress
/// callback and a completion that reports success or a reason.
///
/// ```swift
/// let reverser = AudioReverser()
/// reverser.reverseAudio(url: song, destinationURL: documents.appendingPathComponent("REVERSED.wav"),
///                       progress: { value in DispatchQueue.main.async { self.progress = value } },
///                       completion: { success, failureReason in ... })
/// ```
///
/// Unlike the original, it works in flat memory, keeps every channel unless told otherwise
/// (`options.channels = .first` is the original's behaviour), and can be cancelled.
public final class AudioReverser: Sendable {
    /// Channels, block size and overwriting. Reversal is always on; overwriting defaults to on,
    /// as the original rewrote REVERSED.wav on every run.
    package let options: ConversionOptions

    /// A reverser with these options (reversal is switched on whatever `options.reverse` says).
    public init(options: ConversionOptions = ConversionOptions(overwrite: true)) {
        var options = options
        options.reverse = true
        self.options = options
    }

    /// Reverses `url` into `destinationURL`, asynchronously: the call returns at once and the
    /// work goes on on a thread of its own (a command-line program must wait for `completion`
    /// before it exits, or use the `async` form).
    ///
    /// `progress` receives values in 0...1 (non-decreasing, the last exactly 1.0 once the file is
    /// in place); `completion` is called once, with `(true, nil)`, or `(false, error)` where the
    /// error is a `ReverseAudioError` (its `description` is one line naming the file and the
    /// reason) or `CancellationError`. Both are called on the background thread.
    /// - Returns: a flag that cancels the work (completion then reports the cancellation).
    @discardableResult
    public func reverseAudio(url: URL, destinationURL: URL,
                             progress: @escaping @Sendable (Double) -> Void,
                             completion: @escaping @Sendable (Bool, (any Error)?) -> Void) -> CancellationFlag {
        let flag = CancellationFlag()
        let options = options
        let thread = Thread {
            do {
                _ = try AudioConverter.convert(url, to: destinationURL, options: options, cancellation: flag, progress: progress)
                completion(true, nil)
            } catch {
                completion(false, error)
            }
        }
        thread.stackSize = 8 << 20
        thread.start()
        return flag
    }

    /// The reversed audio of `url` as blocks of `frames` frames (the seed's block: a decoded
    /// packet, when nil), first block first, in this reverser's channels and sample format.
    public func reversedBlocks(of url: URL, frames: Int? = nil) -> ReversedBlocks {
        ReversedBlocks(url: url, frames: frames, options: options)
    }

    /// The same, for Swift concurrency: returns once the file is in place; cancelling the task
    /// stops the work and removes the partial output.
    @discardableResult
    public func reverseAudio(url: URL, destinationURL: URL,
                             progress: (@Sendable (Double) -> Void)? = nil) async throws -> ConversionResult {
        try await AudioConverter.convert(url, to: destinationURL, options: options, progress: progress)
    }
}
