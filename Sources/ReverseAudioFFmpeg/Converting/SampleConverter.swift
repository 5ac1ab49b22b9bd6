import FFmpeg
import ReverseAudioCore

/// Another source's frames in another sample format, at another rate, or mixed to one channel,
/// converted by swresample at its default options, as the `ffmpeg` CLI converts: 16-bit equals
/// `-f s16le`, a mix-down equals `-ac 1`, a rate equals `-ar N`.
///
/// Over an ``AudioFileSource`` that has not delivered anything yet, the conversion happens in
/// the decoder's own interleaving pass (the same swresample call, one pass over the samples);
/// over anything else, on the interleaved frames it lends. Samples narrowed to 24 bits keep
/// their top 24, as FFmpeg's 24-bit encoders keep them.
///
/// ```swift
/// let mono16 = try SampleConverter(AudioFileSource(url: url), sampleFormat: .s16, mixingToMono: true)
/// ```
public final class SampleConverter: PCMSource {
    /// The source converted.
    public let source: any PCMSource
    /// The frames' sample format, rate and channels.
    public let format: PCMFormat
    /// True when the file source converts in its own pass (nothing to do here).
    private let fused: Bool
    private let resampler: Resampler?
    private let inputLayout: ChannelLayout
    private let narrowsTo24Bits: Bool
    /// What was asked: the same conversion of another reader.
    private let request: AudioFileSource.Conversion
    private var pending = PendingFrames()
    private var flushed = false
    /// The index of the next frame read.
    public private(set) var position: Int64 = 0

    /// Converts `source`.
    /// - Parameters:
    ///   - source: the frames to convert.
    ///   - sampleFormat: the sample format delivered; nil keeps the source's.
    ///   - sampleRate: the rate delivered; nil keeps the source's.
    ///   - mixingToMono: mix every channel to one (swresample's rematrix, `ffmpeg -ac 1`).
    /// - Throws: `ReverseAudioError/settingOutOfRange(_:value:allowed:)` for a rate outside
    ///   1 to 768000 Hz.
    public init(_ source: any PCMSource, sampleFormat: SampleFormat? = nil, sampleRate: Int? = nil,
                mixingToMono: Bool = false) throws {
        if let sampleRate, !(1...768_000).contains(sampleRate) {
            throw ReverseAudioError.settingOutOfRange(.sampleRate, value: "\(sampleRate) Hz", allowed: "1 to 768000 Hz")
        }
        self.source = source
        let inner = source.format
        let target = sampleFormat ?? inner.sampleFormat
        narrowsTo24Bits = target == .s24 && ![.u8, .s16, .s24].contains(inner.sampleFormat)
        inputLayout = ChannelLayout(named: inner.channelLayoutName, channelCount: inner.channelCount)
        let request = AudioFileSource.Conversion(sampleFormat: sampleFormat, sampleRate: sampleRate, mixesToMono: mixingToMono)
        self.request = request
        if let file = source as? AudioFileSource, file.adopt(request) {
            fused = true
            resampler = nil
            format = file.format
            return
        }
        fused = false
        resampler = Resampler(channels: mixingToMono ? .mixedToMono : .unchanged, type: target.sampleType, sampleRate: sampleRate)
        format = mixingToMono
            ? PCMFormat(sampleFormat: target, sampleRate: sampleRate ?? inner.sampleRate, channelCount: 1, channelLayoutName: "mono")
            : PCMFormat(sampleFormat: target, sampleRate: sampleRate ?? inner.sampleRate, channelCount: inner.channelCount,
                        channelLayoutName: inner.channelLayoutName)
    }

    /// The frames it holds, when known before reading, and how that is known.
    public var length: PCMLength {
        let inner = source.length
        guard format.sampleRate != source.format.sampleRate else { return inner }
        // A rate conversion changes the length by a ratio swresample rounds: only reading knows it.
        return .unknown
    }

    /// Problems met so far that did not stop reading.
    public var warnings: [ReverseAudioWarning] { source.warnings }
    /// The natural block of what it reads (a decoded packet's frames).
    public var blockFrames: Int? { source.blockFrames }
    /// The file the frames come from, for messages.
    public var name: String { source.name }

    /// The same conversion of an independent reader of the source: none when the rate changes
    /// (a resampler's output depends on everything before it). A conversion the file's decoder
    /// took over comes with its reader.
    public func independentReader() throws -> (any PCMSource)? {
        guard request.sampleRate == nil, let inner = try source.independentReader() else { return nil }
        if fused { return inner }
        return try SampleConverter(inner, sampleFormat: request.sampleFormat, mixingToMono: request.mixesToMono)
    }

    /// Lends the next frames, at most `maximumFrames` (see `PCMSource/read(maximumFrames:)`).
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        guard !fused, let resampler else {
            guard let chunk = try source.read(maximumFrames: maximumFrames) else { return nil }
            position = chunk.position + Int64(chunk.frameCount)
            return chunk
        }
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
    public func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        if fused {
            let seeked = try source.seek(to: frame, endingAt: end)
            position = seeked.reached
            return seeked
        }
        if format.sampleRate != source.format.sampleRate && frame != 0 {
            throw ReverseAudioError.cannotSeek(path: name, frame: frame, reason: "the sample rate is being converted; convert the range first")
        }
        resampler?.reset()
        pending.clear()
        flushed = false
        let seeked = try source.seek(to: frame, endingAt: end)
        position = seeked.reached
        return seeked
    }

    /// What the conversion changes, one phrase each ("sample format f32 → s16").
    public var conversions: [String] {
        if fused, let file = source as? AudioFileSource { return file.conversions }
        let inner = source.format
        var result: [String] = []
        if format.sampleFormat != inner.sampleFormat { result.append("sample format \(inner.sampleFormat) → \(format.sampleFormat)") }
        if format.sampleRate != inner.sampleRate { result.append("sample rate \(inner.sampleRate) → \(format.sampleRate) Hz") }
        if format.channelCount != inner.channelCount { result.append("\(ChannelCountText.phrase(inner.channelCount)) mixed to 1") }
        return result
    }
}
