import CFFmpeg

/// Owns one `AVCodecContext`: allocated for a codec, configured by the decoder or encoder that
/// holds it, opened, and freed exactly once, whether opening succeeded or not.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    private let codec: UnsafePointer<AVCodec>

    init(codec: UnsafePointer<AVCodec>, path: String) throws(FFmpegError) {
        guard let allocated = avcodec_alloc_context3(codec) else {
            throw .outOfMemory("allocating a codec context", path: path)
        }
        self.codec = codec
        pointer = allocated
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&owned)
    }

    /// Opens the codec with the settings made on ``pointer``, and the codec's private `options`
    /// (`["compression_level": "0"]`).
    func open(operation: @autoclosure () -> String, path: String, options: [String: String] = [:]) throws(FFmpegError) {
        var dictionary: OpaquePointer?
        defer { av_dict_free(&dictionary) }
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        try FFmpegError.check(avcodec_open2(pointer, codec, &dictionary), operation(), path: path)
    }
}
