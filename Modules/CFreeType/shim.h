// The C bridge to FreeType: its headers (named through its own macro), plus the load flags,
// which are macros of shifted constants that Swift does not import.
#ifndef REVERSEAUDIO_CFREETYPE_SHIM_H
#define REVERSEAUDIO_CFREETYPE_SHIM_H

#include <ft2build.h>
#include FT_FREETYPE_H

/// Load a glyph's outline and render it into an 8-bit antialiased bitmap.
static inline FT_Int32 ra_ft_load_render(void) { return FT_LOAD_RENDER; }
/// Load a glyph's metrics (its advance) without rendering it.
static inline FT_Int32 ra_ft_load_default(void) { return FT_LOAD_DEFAULT; }

#endif
