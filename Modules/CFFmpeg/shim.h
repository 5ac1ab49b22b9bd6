// The C bridge: FFmpeg's headers plus the macros and compound literals Swift cannot import.
// Anything that differs between FFmpeg versions is decided here, never in Swift.
#ifndef REVERSEAUDIO_CFFMPEG_SHIM_H
#define REVERSEAUDIO_CFFMPEG_SHIM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>

// AVERROR(e) and the FFERRTAG values are function-like or computed macros: not imported.
// Their numeric values differ between platforms (EAGAIN is 11 on Linux, 35 on macOS).
static inline int ra_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int ra_averror_eof(void) { return AVERROR_EOF; }
static inline int ra_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int ra_averror_einval(void) { return AVERROR(EINVAL); }
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

// A packet copied into another file as it is: without side data (the new file's header states
// its own gapless trimming) and without the decode-only flag the demuxer may have set.
static inline void ra_packet_clear_for_copy(AVPacket *packet) {
    av_packet_free_side_data(packet);
    packet->flags &= ~AV_PKT_FLAG_DISCARD;
}

#endif
