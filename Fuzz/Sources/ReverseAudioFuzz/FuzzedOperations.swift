import Foundation
import ReverseAudio

/// Every call the fuzz target makes into the ReverseAudio library, and nothing else: if the
/// library's API is renamed, this is the one file to update.
///
/// Thrown errors are the expected answer to most fuzzed inputs and are ignored. What counts as a
/// finding is a crash, a sanitizer report, a hang, or one of the checks below failing (they print
/// why, then abort so that libFuzzer saves the input).
enum FuzzedOperations {
    /// Work bound per input: a tiny file may claim (or really decode to) hours of audio.
    static let frameLimit: Int64 = 2_000_000

    /// The variants an input is run with; chosen from the input's length, so every seed's
    /// mutations reach all of them.
    struct Variant {
        let channels: ChannelSelection
        /// Reverse into `/dev/null`: an output that cannot be seeked, so the reversal goes
        /// through a temporary file instead of writing blocks at their mirrored places.
        let unseekableOutput: Bool

        init(inputSize: Int) {
            let selections: [ChannelSelection] = [.all, .mix, .first, .channel(1)]
            channels = selections[inputSize % selections.count]
            unseekableOutput = (inputSize / selections.count) % 2 == 1
        }
    }

    /// `REVERSE_AUDIO_FUZZ_VERBOSE=1` prints what each step gave: for looking at a reproducer.
    static let verbose = ProcessInfo.processInfo.environment["REVERSE_AUDIO_FUZZ_VERBOSE"].map { !$0.isEmpty } ?? false

    /// Once per process.
    static func setUp() {
        FFmpegDiagnostics.show(.quiet)
    }

    /// Describe, decode, then reverse `input`; a reversed output goes to `output` (removed
    /// afterwards) or to `/dev/null`.
    static func run(input: URL, output: URL, variant: Variant) {
        // 1. Describe.
        let info: AudioInfo?
        do {
            info = try AudioInfo.read(from: input)
            log("info: \(info!.container) \(info!.codec) \(info!.sampleRate) Hz \(info!.channelCount) ch, frames \(info!.frames.map(String.init) ?? "unknown")")
        } catch {
            info = nil
            log("info: \(error)")
        }

        // 2. Decode, up to the frame limit: the library's reader, in 16-bit, its channels as the
        // variant says.
        var decodedFrames: Int64?
        do {
            let source = try AudioReader(url: input, sampleFormat: .s16, channels: variant.channels)
            var frames: Int64 = 0
            var finished = false
            while frames <= frameLimit {
                guard let chunk = try source.read(maximumFrames: 4096) else {
                    finished = true
                    break
                }
                check(chunk.frameCount > 0, "read(maximumFrames:) lent an empty chunk instead of nil")
                check(chunk.position == frames, "a chunk at \(chunk.position) followed \(frames) frames")
                frames += Int64(chunk.frameCount)
            }
            if finished { decodedFrames = frames }
            log("decode (\(variant.channels)): \(frames) frames\(finished ? "" : ", stopped at the limit"), warnings \(source.warnings)")
        } catch {
            log("decode (\(variant.channels)): \(error)")
        }

        // 3. Reverse, only when both the prediction and the decode stay within the limit.
        guard let info, (info.frames ?? 0) <= frameLimit, let decodedFrames else { return }
        let progress = ProgressLog()
        let destination = variant.unseekableOutput ? URL(fileURLWithPath: "/dev/null") : output
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let options = ConversionOptions(channels: variant.channels, reverse: true, overwrite: true)
        Task {
            do {
                outcome.set(.success(try await AudioConverter.convert(input, to: destination, options: options,
                                                                       progress: { progress.record($0) })))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        var result: ConversionResult?
        switch outcome.value {
        case .success(let converted)?:
            result = converted
            log("reverse to \(destination.path): \(converted.frames) frames, warnings \(converted.warnings)")
        case .failure(let error)?:
            log("reverse to \(destination.path): \(error)")
        case nil:
            check(false, "the conversion task ended without a result")
        }
        if !variant.unseekableOutput { try? FileManager.default.removeItem(at: output) }

        progress.check(succeeded: result != nil)
        if let result {
            // The reversal decodes the same way as step 2: same frames, or one of them is wrong.
            check(result.frames == decodedFrames,
                  "AudioConverter reversed \(result.frames) frames; the file source decoded \(decodedFrames) (channels \(variant.channels))")
        }
    }

    /// The conversion's result, handed from its task to the fuzzer's thread.
    final class Outcome: @unchecked Sendable {
        // @unchecked: `stored` is only touched under `lock`.
        private let lock = NSLock()
        private var stored: Result<ConversionResult, any Error>?

        func set(_ result: Result<ConversionResult, any Error>) {
            lock.lock()
            stored = result
            lock.unlock()
        }

        var value: Result<ConversionResult, any Error>? {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }

    /// Records progress and checks ``ProgressHandler``'s documented contract: fractions in
    /// 0...1, non-decreasing, and 1.0 exactly once, last, only when the conversion succeeded.
    final class ProgressLog: @unchecked Sendable {
        // @unchecked: `values` is only touched under `lock`.
        private let lock = NSLock()
        private var values: [Double] = []

        func record(_ fraction: Double) {
            lock.lock()
            values.append(fraction)
            lock.unlock()
        }

        func check(succeeded: Bool) {
            lock.lock()
            let values = values
            lock.unlock()
            FuzzedOperations.check(values.allSatisfy { (0...1).contains($0) }, "progress outside 0...1: \(values)")
            FuzzedOperations.check(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "progress decreased: \(values)")
            let ends = values.filter { $0 == 1 }.count
            if succeeded {
                FuzzedOperations.check(ends == 1 && values.last == 1, "a finished conversion reported 1.0 \(ends) times: \(values)")
            } else {
                FuzzedOperations.check(ends == 0, "a failed conversion reported 1.0: \(values)")
            }
        }
    }

    private static func log(_ message: @autoclosure () -> String) {
        guard verbose else { return }
        FileHandle.standardError.write(Data("ReverseAudioFuzz: \(message())\n".utf8))
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        FileHandle.standardError.write(Data("ReverseAudioFuzz: \(message())\n".utf8))
        abort()
    }
}
