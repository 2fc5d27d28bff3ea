#include <zlib.h>

/// inflateInit2 is a macro over inflateInit2_ (it passes the header's version and the stream's
/// size, so the library can check them); Swift cannot call a function-like macro.
static inline int czlib_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}
