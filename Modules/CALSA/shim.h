// The C bridge to ALSA's PCM API (libasound2-dev, pkg-config `alsa`), Linux only. Only the
// Swift `ALSA` target imports it.
#ifndef REVERSEAUDIO_CALSA_SHIM_H
#define REVERSEAUDIO_CALSA_SHIM_H

#include <errno.h>
#include <alsa/asoundlib.h>

// ALSA prints its own diagnostics to standard error (a missing card, an unknown PCM name)
// through a variadic handler, which Swift cannot define: these silence it process-wide, so a
// failure reaches the user once, as the caller's own one-line error.
static void ra_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void ra_alsa_silence_errors(void) {
    snd_lib_error_set_handler(ra_alsa_quiet_handler);
}

static inline int ra_alsa_open_nonblocking(void) { return SND_PCM_NONBLOCK; }
static inline int ra_alsa_epipe(void) { return -EPIPE; }
static inline int ra_alsa_estrpipe(void) { return -ESTRPIPE; }
static inline int ra_alsa_eintr(void) { return -EINTR; }
static inline int ra_alsa_eagain(void) { return -EAGAIN; }

#endif
