import FFmpeg
import Foundation

/// Writes 16-bit PCM to a WAV file through libavformat's `wav` muxer.
///
/// The file is written under a temporary name beside `url` and renamed into place by
/// ``finish()``; ``cancel()`` (or releasing an unfinished writer) removes it, so no partial
/// file is ever left at `url`.
///
/// ```swift
/// let writer = try WAVWriter(url: output, format: decoder.format)
/// while let block = try decoder.read() { try writer.append(block) }
/// try writer.finish()
/// ```
public final class WAVWriter {
    /// The finished file's location.
    public let url: URL
    /// The PCM shape the file declares.
    public let format: PCMFormat
    /// Frames handed to the muxer so far.
    public private(set) var framesWritten: Int64 = 0

    private let output: OutputFile
    private let muxer: Muxer
    private let dataStart: Int64
    private var endFrame: Int64 = 0
    private var isFinished = false

    /// The frame after the highest one written: where ``append(_:)`` writes.
    var nextFrame: Int64 { endFrame }

    /// Creates the writer and writes the WAV header.
    /// - Parameters:
    ///   - overwrite: replace an existing file at `url` (only when ``finish()`` succeeds).
    ///   - expectedFrames: the length if known; beyond 4 GiB of data the file becomes RF64.
    public convenience init(url: URL, format: PCMFormat, overwrite: Bool = false, expectedFrames: Int64? = nil) throws {
        try self.init(url: url, sampleRate: format.sampleRate,
                      channelLayout: ChannelLayout(named: format.channelLayoutName, channelCount: format.channelCount),
                      overwrite: overwrite, inputs: [], expectedFrames: expectedFrames)
    }

    init(url: URL, sampleRate: Int, channelLayout: ChannelLayout, overwrite: Bool, inputs: [URL],
         expectedFrames: Int64?) throws {
        self.url = url
        format = PCMFormat(sampleRate: sampleRate, channelCount: channelLayout.channelCount,
                           channelLayoutName: channelLayout.name)
        output = try OutputFile(url: url, overwrite: overwrite, inputs: inputs)
        do {
            muxer = try Muxer(path: output.temporaryURL.path, sampleRate: sampleRate, channelLayout: channelLayout)
        } catch {
            output.discard()
            throw ReverseAudioError.cannotCreateOutput(path: url.displayPath, reason: WAVWriter.reason(error))
        }
        do {
            // A plain RIFF header whenever the data surely fits in 4 GiB; RF64 when it may not.
            let limit: Int64 = 0xFFFF_FFFF - (1 << 20)
            let bytesPerFrame = Int64(2 * channelLayout.channelCount)
            let mayOutgrowRIFF = expectedFrames.map { $0 * bytesPerFrame > limit } ?? true
            try muxer.writeHeader(allowRF64: mayOutgrowRIFF)
        } catch {
            try? muxer.close()
            output.discard()
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: WAVWriter.reason(error))
        }
        dataStart = muxer.bytePosition
    }

    /// Appends a block after everything written so far.
    public func append(_ block: SampleBuffer) throws {
        guard block.channelCount == format.channelCount else {
            throw ReverseAudioError.invalidOption(
                "block has \(block.channelCount) channels, the file \(format.channelCount)")
        }
        try block.samples.withUnsafeBufferPointer { samples in
            try write(samples, frames: block.frameCount, at: nextFrame)
        }
    }

    /// Writes `frames` interleaved frames at frame index `frame` of the data. Blocks may come in
    /// any order (a reversal writes the last block first); the file ends after the highest
    /// frame written.
    func write(_ samples: UnsafeBufferPointer<Int16>, frames: Int, at frame: Int64) throws {
        do {
            let offset = dataStart + frame * Int64(format.bytesPerFrame)
            if muxer.bytePosition != offset { try muxer.seek(toByte: offset) }
            try muxer.write(samples, frames: frames)
        } catch {
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: WAVWriter.reason(error))
        }
        framesWritten += Int64(frames)
        endFrame = max(endFrame, frame + Int64(frames))
    }

    /// Completes the header and moves the file into place.
    public func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        do {
            try muxer.finish(atByte: dataStart + endFrame * Int64(format.bytesPerFrame))
        } catch {
            output.discard()
            throw ReverseAudioError.writeFailed(path: url.displayPath, reason: WAVWriter.reason(error))
        }
        try output.commit()
    }

    /// Abandons the file: nothing is left at `url` or under the temporary name.
    public func cancel() {
        guard !isFinished else { return }
        isFinished = true
        try? muxer.close()
        output.discard()
    }

    deinit { cancel() }

    private static func reason(_ error: any Error) -> String {
        (error as? FFmpegError)?.message ?? String(describing: error)
    }
}
