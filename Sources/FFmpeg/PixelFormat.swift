import CFFmpeg

/// A pixel format by FFmpeg's number, with what the video path needs to know about its layout.
package struct PixelFormat: Sendable, Equatable, Hashable, CustomStringConvertible {
    let raw: AVPixelFormat

    init(_ raw: AVPixelFormat) { self.raw = raw }

    init(rawValue: Int32) { raw = AVPixelFormat(rawValue: rawValue) }

    /// FFmpeg's name ("yuv420p", "nv12", "yuv420p10le").
    package var name: String {
        av_get_pix_fmt_name(raw).map { String(cString: $0) } ?? "none"
    }

    package var description: String { name }

    private var descriptor: UnsafePointer<AVPixFmtDescriptor>? { av_pix_fmt_desc_get(raw) }

    /// log2 of the chroma subsampling: (1, 1) for 4:2:0, (1, 0) for 4:2:2, (0, 0) for 4:4:4 and RGB.
    package var chromaShift: (width: Int, height: Int) {
        guard let descriptor else { return (0, 0) }
        return (Int(descriptor.pointee.log2_chroma_w), Int(descriptor.pointee.log2_chroma_h))
    }

    package var hasAlpha: Bool {
        guard let descriptor else { return false }
        return (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA)) != 0
    }

    /// Bytes one picture of `width` × `height` takes with rows packed tightly.
    package func pictureByteCount(width: Int, height: Int) -> Int {
        Int(av_image_get_buffer_size(raw, Int32(width), Int32(height), 1))
    }

    /// The format in `candidates` that loses least when converting from this one (FFmpeg's own
    /// choice, as the `ffmpeg` CLI makes it for an encoder).
    package func closest(in candidates: [PixelFormat]) -> PixelFormat? {
        guard !candidates.isEmpty else { return nil }
        var list = candidates.map(\.raw) + [AV_PIX_FMT_NONE]
        let chosen = avcodec_find_best_pix_fmt_of_list(&list, raw, hasAlpha ? 1 : 0, nil)
        return chosen == AV_PIX_FMT_NONE ? nil : PixelFormat(chosen)
    }
}
