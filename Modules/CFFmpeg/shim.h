// The C bridge: FFmpeg's headers plus the macros and compound literals Swift cannot import.
// Anything that differs between FFmpeg versions is decided here, never in Swift.
#ifndef REVERSEAUDIO_CFFMPEG_SHIM_H
#define REVERSEAUDIO_CFFMPEG_SHIM_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/crc.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/sha.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// FFmpeg's log, routed to a function of ours: each message formatted into one line as FFmpeg's
// own callback would print it ("[ipod @ 0x...] Warning, ..."), then handed over with its level.
// av_log's callback takes a va_list, which Swift cannot receive: the formatting is done here.
// The sink lives in a function's own static: Swift emits the header's functions it uses, and
// their statics with them, but not a variable declared at file scope.
typedef void (*ra_log_sink)(int level, const char *line);
static ra_log_sink *ra_log_sink_slot(void) {
    static ra_log_sink sink = NULL;
    return &sink;
}
static void ra_log_routed(void *avcl, int level, const char *format, va_list arguments) {
    ra_log_sink sink = *ra_log_sink_slot();
    if (level > av_log_get_level() || sink == NULL) return;
    // A message may come in pieces (the first without its newline): the prefix goes on the
    // first piece only, as FFmpeg's own callback does.
    static int printPrefix = 1;
    char line[1024];
    av_log_format_line2(avcl, level, format, arguments, line, (int)sizeof line, &printPrefix);
    sink(level, line);
}
/// Sends FFmpeg's log to `sink` (NULL: back to FFmpeg's own printing on standard error).
static inline void ra_log_route(ra_log_sink sink) {
    *ra_log_sink_slot() = sink;
    av_log_set_callback(sink != NULL ? ra_log_routed : av_log_default_callback);
}

// AVERROR(e) and the FFERRTAG values are function-like or computed macros: not imported.
// Their numeric values differ between platforms (EAGAIN is 11 on Linux, 35 on macOS).
static inline int ra_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int ra_averror_eof(void) { return AVERROR_EOF; }
static inline int ra_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int ra_averror_einval(void) { return AVERROR(EINVAL); }
static inline int ra_averror_eperm(void) { return AVERROR(EPERM); }
static inline int ra_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int ra_averror_exit(void) { return AVERROR_EXIT; }
static inline int ra_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int ra_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }

static inline int64_t ra_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int ra_av_time_base(void) { return AV_TIME_BASE; }

static inline AVChannelLayout ra_channel_layout_mono(void) {
    AVChannelLayout layout = AV_CHANNEL_LAYOUT_MONO;
    return layout;
}

// The skip-samples side data (AV_PKT_DATA_SKIP_SAMPLES): samples the decoder drops at the start
// of the frame and at its end (gapless trimming). Returns 0 when the packet carries none.
static inline int ra_packet_skip_samples(const AVPacket *packet, uint32_t *skip_start, uint32_t *skip_end) {
    size_t size = 0;
    const uint8_t *data = av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, &size);
    *skip_start = 0;
    *skip_end = 0;
    if (data == NULL || size < 8) return 0;
    *skip_start = (uint32_t)data[0] | ((uint32_t)data[1] << 8) | ((uint32_t)data[2] << 16) | ((uint32_t)data[3] << 24);
    *skip_end = (uint32_t)data[4] | ((uint32_t)data[5] << 8) | ((uint32_t)data[6] << 16) | ((uint32_t)data[7] << 24);
    return 1;
}

static inline int ra_packet_is_discarded(const AVPacket *packet) {
    return (packet->flags & AV_PKT_FLAG_DISCARD) != 0;
}

// av_seek_frame flags are plain #defines, but name them here with the rest of the bridge.
static inline int ra_seek_flag_backward(void) { return AVSEEK_FLAG_BACKWARD; }
static inline int ra_seek_flag_byte(void) { return AVSEEK_FLAG_BYTE; }

// Replaces a packet's skip-samples side data (gapless trimming the decoder applies).
static inline int ra_packet_set_skip_samples(AVPacket *packet, uint32_t skip_start, uint32_t skip_end) {
    uint8_t *data = av_packet_new_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, 10);
    if (data == NULL) return AVERROR(ENOMEM);
    memset(data, 0, 10);
    data[0] = skip_start & 0xFF; data[1] = (skip_start >> 8) & 0xFF; data[2] = (skip_start >> 16) & 0xFF; data[3] = skip_start >> 24;
    data[4] = skip_end & 0xFF; data[5] = (skip_end >> 8) & 0xFF; data[6] = (skip_end >> 16) & 0xFF; data[7] = skip_end >> 24;
    return 0;
}

static inline int ra_avio_flag_write(void) { return AVIO_FLAG_WRITE; }
static inline int ra_avio_flag_read(void) { return AVIO_FLAG_READ; }

// A packet copied into another file as it is: without side data (the new file's header states
// its own gapless trimming) and without the decode-only flag the demuxer may have set.
static inline void ra_packet_clear_for_copy(AVPacket *packet) {
    av_packet_free_side_data(packet);
    packet->flags &= ~AV_PKT_FLAG_DISCARD;
}

// ---- Video (reverse-audio video) ----

// A decoded frame's duration in its stream's time base: `pkt_duration` until FFmpeg 6 named it
// `duration` (and 7 removed the old name).
static inline int64_t ra_frame_duration(const AVFrame *frame) {
#if LIBAVUTIL_VERSION_MAJOR >= 58
    return frame->duration;
#else
    return frame->pkt_duration;
#endif
}

// The display matrix (rotation, flips) a stream carries: 9 int32 values, or 0 when it has none.
// FFmpeg 6.1 moved stream side data into codecpar->coded_side_data.
static inline int ra_stream_display_matrix(const AVStream *stream, int32_t matrix[9]) {
    const uint8_t *data = NULL;
    size_t size = 0;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    if (side) { data = side->data; size = side->size; }
#else
    data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
#endif
    if (data == NULL || size < 9 * sizeof(int32_t)) return 0;
    memcpy(matrix, data, 9 * sizeof(int32_t));
    return 1;
}

// Gives an output stream a display matrix, which the MP4/MOV muxers write into the track header.
static inline int ra_stream_set_display_matrix(AVStream *stream, const int32_t matrix[9]) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    AVPacketSideData *side = av_packet_side_data_new(&stream->codecpar->coded_side_data,
                                                     &stream->codecpar->nb_coded_side_data,
                                                     AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t), 0);
    uint8_t *data = side ? side->data : NULL;
#else
    uint8_t *data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
#endif
    if (data == NULL) return AVERROR(ENOMEM);
    memcpy(data, matrix, 9 * sizeof(int32_t));
    return 0;
}

static inline int ra_packet_is_keyframe(const AVPacket *packet) {
    return (packet->flags & AV_PKT_FLAG_KEY) != 0;
}

// Frames a decoder should hand out even before it considers the picture recovered (after a
// restart at an open-GOP keyframe): which frames are kept is decided by timestamp instead.
static inline int ra_codec_flag2_show_all(void) { return AV_CODEC_FLAG2_SHOW_ALL; }

static inline int ra_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }

static inline int ra_sws_flags_exact(void) {
    // Bit-exact, accurate rounding, full chroma interpolation: the conversion is a quality step,
    // not a speed one (it only runs when the encoder cannot take the decoder's pixel format).
    return SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP | SWS_BITEXACT;
}

// A picture's planes to and from one tightly packed buffer (a spill file's record). The pointer
// constness of av_image_copy and friends changed in FFmpeg 7: the casts live here.
static inline int ra_frame_picture_to_buffer(const AVFrame *frame, uint8_t *buffer, int size) {
    return av_image_copy_to_buffer(buffer, size, (const uint8_t * const *)frame->data, frame->linesize,
                                   (enum AVPixelFormat)frame->format, frame->width, frame->height, 1);
}

static inline int ra_frame_picture_from_buffer(AVFrame *frame, const uint8_t *buffer, int size) {
    uint8_t *planes[4];
    int linesizes[4];
    int needed = av_image_fill_arrays(planes, linesizes, buffer, (enum AVPixelFormat)frame->format,
                                      frame->width, frame->height, 1);
    if (needed < 0) return needed;
    if (needed > size) return AVERROR(EINVAL);
    av_image_copy(frame->data, frame->linesize, (const uint8_t **)planes, linesizes,
                  (enum AVPixelFormat)frame->format, frame->width, frame->height);
    return 0;
}

// Converts `source` into `destination` (allocated, same size, another pixel format).
static inline int ra_sws_scale_frame(struct SwsContext *context, AVFrame *destination, const AVFrame *source) {
    int rows = sws_scale(context, (const uint8_t * const *)source->data, source->linesize, 0, source->height,
                         destination->data, destination->linesize);
    return rows < 0 ? rows : 0;
}

// A chapter added to a muxer's context before its header is written (libavformat has no public
// function for it; ffmpeg's own copy_chapters does the same). avformat_free_context frees it.
static inline int ra_add_chapter(AVFormatContext *context, int64_t id, AVRational time_base, int64_t start, int64_t end,
                                 const char *title) {
    AVChapter *chapter = av_mallocz(sizeof(AVChapter));
    if (!chapter) return AVERROR(ENOMEM);
    AVChapter **grown = av_realloc_array(context->chapters, context->nb_chapters + 1, sizeof(*context->chapters));
    if (!grown) { av_free(chapter); return AVERROR(ENOMEM); }
    context->chapters = grown;
    chapter->id = id;
    chapter->time_base = time_base;
    chapter->start = start;
    chapter->end = end;
    if (title && av_dict_set(&chapter->metadata, "title", title, 0) < 0) { av_free(chapter); return AVERROR(ENOMEM); }
    context->chapters[context->nb_chapters++] = chapter;
    return 0;
}

#endif
