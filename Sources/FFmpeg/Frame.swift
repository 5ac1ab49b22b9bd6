import CFFmpeg

/// Owns one `AVFrame`: decoded audio in the decoder's sample format.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    public init() throws(FFmpegError) {
        guard let frame = av_frame_alloc() else { throw .outOfMemory("allocating a frame") }
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    public func unreference() { av_frame_unref(pointer) }

    /// Sample frames (one sample per channel) in this frame.
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }

    /// The frame's audio format, used to (re)configure a resampler.
    var audioFormat: AudioFormat {
        AudioFormat(
            sampleFormat: AVSampleFormat(rawValue: pointer.pointee.format),
            sampleRate: Int32(sampleRate),
            channelLayout: ChannelLayout(copying: pointer.pointee.ch_layout)
        )
    }
}
