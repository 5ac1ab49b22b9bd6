import CFFmpeg

/// Owns a copy of a stream's `AVCodecParameters`, taken when the file was opened, and frees it
/// once. A demuxer updates its stream's parameters as its parser reads frame headers (an MPEG
/// audio stream's rate becomes the last frame's), so a decoder opened from them later would not
/// start as the one opened with the file does; one opened from this copy does.
final class CodecParameters {
    let pointer: UnsafeMutablePointer<AVCodecParameters>

    init(copying source: UnsafePointer<AVCodecParameters>, path: String) throws(FFmpegError) {
        guard let allocated = avcodec_parameters_alloc() else {
            throw .outOfMemory("copying the stream's codec parameters", path: path)
        }
        pointer = allocated
        try FFmpegError.check(avcodec_parameters_copy(allocated, source), "copying the stream's codec parameters", path: path)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&owned)
    }
}
