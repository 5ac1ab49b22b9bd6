import CFFmpeg

extension Demuxer {
    /// The index of the video stream FFmpeg considers best (as the `ffmpeg` CLI would pick),
    /// leaving out cover art (an attached picture is a still image, not a video); nil when
    /// there is none.
    package func bestVideoStreamIndex() -> Int? {
        let moving = (0..<Int(context.pointee.nb_streams)).filter { index in
            let stream = context.pointee.streams[index]!
            return stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
                && (stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) == 0
        }
        guard !moving.isEmpty else { return nil }
        let best = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        return best >= 0 && moving.contains(Int(best)) ? Int(best) : moving[0]
    }

    /// Every video stream's index, cover art included, in file order.
    package func videoStreamIndices() -> [Int] {
        let kinds = streamKinds
        return kinds.indices.filter { kinds[$0] == .video }
    }

    /// True when stream `index` is a still picture attached to the file (cover art).
    package func isAttachedPicture(stream index: Int) -> Bool {
        (stream(at: index).pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
    }

    /// What the container and probe say about video stream `index`.
    package func videoStream(at index: Int) -> VideoStreamParameters {
        VideoStreamParameters(stream: stream(at: index), format: context)
    }

    /// The time base of stream `index`'s timestamps.
    package func timeBase(ofStream index: Int) -> Rational {
        Rational(stream(at: index).pointee.time_base)
    }

    /// The first timestamp of stream `index` as the container states it, in its time base.
    package func startTimestamp(ofStream index: Int) -> Int64? {
        let start = stream(at: index).pointee.start_time
        return start == ra_av_nopts_value() ? nil : start
    }
}
