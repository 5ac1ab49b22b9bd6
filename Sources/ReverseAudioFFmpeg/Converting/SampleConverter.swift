import FFmpeg
import ReverseAudioCore

/// Another source's frames in another sample format, at another rate, or mixed to one channel,
/// converted by swresample at its default options, as the `ffmpeg` CLI converts: 16-bit equals
/// `-f s16le`, a mix-down equals `-ac 1`, a rate equals `-ar N`. Made by
/// ``PCMSource/converted(to:sampleRate:mixingToMono:name:)``.
///
/// A file's own decode converts in its interleaving pass instead (the chain builder asks the
/// file first: one swresample pass over the samples); this converts the frames another source
/// lends. Samples narrowed to 24 bits keep their top 24, as FFmpeg's 24-bit encoders keep them.
package final class SampleConverter: PCMSource {
    private let source: any PCMSource
    /// The frames' sample format, rate and channels.
    package let format: PCMFormat
    private let resampler: Resampler
    private let inputLayout: ChannelLayout
    private let narrowsTo24Bits: Bool
    private let name: String
    private var pending = PendingFrames()
    private var flushed = false
    private var position: Int64 = 0

    init(_ source: any PCMSource, sampleFormat: SampleFormat?, sampleRate: Int?, mixingToMono: Bool, name: String) {
        self.source = source
        self.name = name
        let inner = source.format
        let target = sampleFormat ?? inner.sampleFormat
        narrowsTo24Bits = target == .s24 && ![.u8, .s16, .s24].contains(inner.sampleFormat)
        inputLayout = ChannelLayout(named: inner.channelLayoutName, channelCount: inner.channelCount)
        resampler = Resampler(channels: mixingToMono ? .mixedToMono : .unchanged, type: target.sampleType, sampleRate: sampleRate)
        format = mixingToMono
            ? PCMFormat(sampleFormat: target, sampleRate: sampleRate ?? inner.sampleRate, channelCount: 1, channelLayoutName: "mono")
            : PCMFormat(sampleFormat: target, sampleRate: sampleRate ?? inner.sampleRate, channelCount: inner.channelCount,
                        channelLayoutName: inner.channelLayoutName)
    }

    /// The frames it holds, when known before reading, and how that is known.
    package var length: PCMLength {
        // A rate conversion changes the length by a ratio swresample rounds: only reading knows it.
        format.sampleRate == source.format.sampleRate ? source.length : .unknown
    }

    /// Lends the next frames, at most `maximumFrames` (see `PCMSource/read(maximumFrames:)`).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        let frameBytes = format.bytesPerFrame
        while true {
            if let chunk = pending.take(maximumFrames, frameBytes: frameBytes, position: position) {
                position += Int64(chunk.frameCount)
                return chunk
            }
            if flushed { return nil }
            let inner = source.format
            if let chunk = try source.read(maximumFrames: maximumFrames) {
                keep(try converting {
                    try resampler.convert(interleaved: chunk.bytes.baseAddress!, frames: chunk.frameCount,
                                          type: inner.sampleFormat.sampleType, sampleRate: inner.sampleRate, layout: inputLayout)
                })
            } else {
                flushed = true
                keep(try converting { try resampler.flush() })
            }
        }
    }

    private func keep(_ converted: UnsafeRawBufferPointer) {
        let frameBytes = format.bytesPerFrame
        let frames = converted.count / max(frameBytes, 1)
        guard frames > 0, let base = converted.baseAddress else { return }
        if narrowsTo24Bits {
            let samples = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: Int32.self)
            for index in 0..<(frames * frameBytes / 4) { samples[index] &= ~0xFF }
        }
        pending.set(base, frames: frames)
    }

    private func converting(_ work: () throws -> UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        try mappingFFmpegErrors(path: name, work)
    }

    /// Seeks the source; with a rate conversion only back to the start.
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        if format.sampleRate != source.format.sampleRate && frame != 0 {
            throw ReverseAudioError.range(.cannotSeek(path: name, frame: frame, reason: "the sample rate is being converted; convert the range first"))
        }
        resampler.reset()
        pending.clear()
        flushed = false
        let seeked = try source.seek(to: frame, endingAt: end)
        position = seeked.reached
        return seeked
    }

    /// What the conversion changes, one phrase each ("sample format f32 → s16").
    package var conversions: [String] {
        let inner = source.format
        var result: [String] = []
        if format.sampleFormat != inner.sampleFormat { result.append("sample format \(inner.sampleFormat) → \(format.sampleFormat)") }
        if format.sampleRate != inner.sampleRate { result.append("sample rate \(inner.sampleRate) → \(format.sampleRate) Hz") }
        if format.channelCount != inner.channelCount { result.append("\(ChannelCountText.phrase(inner.channelCount)) mixed to 1") }
        return result
    }
}

extension PCMSource {
    /// This source's frames converted by swresample: another sample format (nil keeps it),
    /// another rate (nil keeps it), mixed to one channel.
    /// - Parameter name: the file the frames come from, for messages.
    /// - Throws: `SettingError.outOfRange(_:value:allowed:)` for a rate outside
    ///   1 to 768000 Hz.
    package func converted(to sampleFormat: SampleFormat?, sampleRate: Int? = nil, mixingToMono: Bool = false,
                           name: String) throws -> SampleConverter {
        try SampleConverter.checkRate(sampleRate)
        return SampleConverter(self, sampleFormat: sampleFormat, sampleRate: sampleRate, mixingToMono: mixingToMono, name: name)
    }
}

extension SampleConverter {
    /// Refuses a rate outside 1 to 768000 Hz.
    static func checkRate(_ rate: Int?) throws {
        if let rate, !(1...768_000).contains(rate) {
            throw ReverseAudioError.setting(.outOfRange(.sampleRate, value: "\(rate) Hz", allowed: "1 to 768000 Hz"))
        }
    }
}
