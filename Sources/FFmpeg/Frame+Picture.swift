import CFFmpeg

/// Video frames: a decoded picture, or one handed to a video encoder.
extension Frame {
    package var width: Int { Int(pointer.pointee.width) }
    package var height: Int { Int(pointer.pointee.height) }
    package var pixelFormat: PixelFormat { PixelFormat(rawValue: pointer.pointee.format) }

    /// The frame's presentation time in its stream's time base, as the `ffmpeg` CLI takes it
    /// (`best_effort_timestamp`: the container's timestamp, or FFmpeg's guess when it has none).
    package var bestEffortTimestamp: Int64? {
        let value = pointer.pointee.best_effort_timestamp
        return value == ra_av_nopts_value() ? nil : value
    }

    /// Gives the frame the presentation time a continuous decode would have given it, where the
    /// decoder could not (see ``bestEffortTimestamp``).
    package func setBestEffortTimestamp(_ timestamp: Int64) {
        pointer.pointee.best_effort_timestamp = timestamp
    }

    /// How long the frame lasts in its stream's time base, from its packet; 0 when unknown.
    package var duration: Int64 { ra_frame_duration(pointer) }

    /// Bytes of buffers this frame keeps alive (what holding it costs in memory).
    package var heldBytes: Int {
        var total = 0
        withUnsafePointer(to: pointer.pointee.buf) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<AVBufferRef>?.self, capacity: 8) { buffers in
                for index in 0..<8 { total += buffers[index].map { Int($0.pointee.size) } ?? 0 }
            }
        }
        for index in 0..<Int(pointer.pointee.nb_extended_buf) {
            total += pointer.pointee.extended_buf[index].map { Int($0.pointee.size) } ?? 0
        }
        return total
    }

    /// Bytes of the picture with rows packed tightly (a spill record).
    package var pictureByteCount: Int { pixelFormat.pictureByteCount(width: width, height: height) }

    /// Takes over `other`'s picture and properties without copying (`other` is left empty).
    package func take(_ other: Frame) {
        av_frame_unref(pointer)
        av_frame_move_ref(pointer, other.pointer)
    }

    /// Readies the frame for an encoder: its timestamp in the encoder's time base, and no
    /// picture type, which libx264 would otherwise obey (a decoder's B picture must not force
    /// the encoder's choice, as the `ffmpeg` CLI also clears it).
    package func prepareForEncoding(timestamp: Int64) {
        pointer.pointee.pts = timestamp
        pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE
    }

    /// Gives the frame a picture of `format` at `width` × `height` it can write into: its own
    /// buffers when they have that shape and nobody else holds them, fresh ones otherwise.
    /// Properties (colour, aspect ratio) are copied from `model` when given.
    package func preparePicture(format: PixelFormat, width: Int, height: Int, like model: Frame? = nil) throws(FFmpegError) {
        let reusable = pointer.pointee.buf.0 != nil && pointer.pointee.format == format.raw.rawValue
            && self.width == width && self.height == height && av_frame_is_writable(pointer) != 0
        if !reusable {
            av_frame_unref(pointer)
            pointer.pointee.format = format.raw.rawValue
            pointer.pointee.width = Int32(width)
            pointer.pointee.height = Int32(height)
            try FFmpegError.check(av_frame_get_buffer(pointer, 0), "allocating a picture")
        }
        if let model {
            try FFmpegError.check(av_frame_copy_props(pointer, model.pointer), "copying a picture's properties")
        }
    }

    /// Copies the picture into `buffer`, rows packed tightly; `buffer` holds ``pictureByteCount`` bytes.
    package func copyPicture(to buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) {
        try FFmpegError.check(
            ra_frame_picture_to_buffer(pointer, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)),
            "copying a picture")
    }

    /// Fills the frame's picture (already prepared at the right shape) from tightly packed rows.
    package func fillPicture(from buffer: UnsafeRawBufferPointer) throws(FFmpegError) {
        try FFmpegError.check(
            ra_frame_picture_from_buffer(pointer, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)),
            "restoring a picture")
    }

    /// Copies `source` into this frame (prepared larger by at most one pixel each way), repeating
    /// its last column and last row into the extra ones, plane by plane: the picture's every pixel
    /// is kept and the edge it gains looks like the edge it had.
    package func copyPadded(from source: Frame) throws(FFmpegError) {
        let format = source.pixelFormat
        guard format == pixelFormat, width >= source.width, height >= source.height,
              let descriptor = av_pix_fmt_desc_get(format.raw) else {
            throw .invalidArgument("padding a \(source.width)×\(source.height) \(format.name) picture to \(width)×\(height)")
        }
        let planes = Int(av_pix_fmt_count_planes(format.raw))
        let chromaRows = Int32(descriptor.pointee.log2_chroma_h)
        for index in 0..<planes {
            let isChroma = index == 1 || index == 2
            let sourceRows = isChroma ? ceilShift(source.height, chromaRows) : source.height
            let rows = isChroma ? ceilShift(height, chromaRows) : height
            let sourceBytes = Int(av_image_get_linesize(format.raw, Int32(source.width), Int32(index)))
            let rowBytes = Int(av_image_get_linesize(format.raw, Int32(width), Int32(index)))
            guard sourceBytes > 0, rowBytes >= sourceBytes,
                  let from = source.planeBase(index), let to = planeBase(index) else {
                throw .invalidArgument("padding plane \(index) of a \(format.name) picture")
            }
            let fromStride = source.stride(index)
            let toStride = stride(index)
            av_image_copy_plane(to, Int32(toStride), from, Int32(fromStride), Int32(sourceBytes), Int32(sourceRows))
            let extra = rowBytes - sourceBytes
            if extra > 0 {
                // The extra bytes are one more pixel: repeat the last one on every row.
                for row in 0..<sourceRows {
                    let line = to + row * toStride
                    (line + sourceBytes).update(from: line + sourceBytes - extra, count: extra)
                }
            }
            for row in sourceRows..<rows {
                (to + row * toStride).update(from: to + (sourceRows - 1) * toStride, count: rowBytes)
            }
        }
    }

    private func ceilShift(_ value: Int, _ shift: Int32) -> Int { -((-value) >> Int(shift)) }

    private func planeBase(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
        withUnsafePointer(to: pointer.pointee.data) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[index] }
        }
    }

    private func stride(_ index: Int) -> Int {
        withUnsafePointer(to: pointer.pointee.linesize) { tuple in
            tuple.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[index]) }
        }
    }
}
