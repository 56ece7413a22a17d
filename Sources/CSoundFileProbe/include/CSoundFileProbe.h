#ifndef SPLAY_CSOUNDFILEPROBE_H
#define SPLAY_CSOUNDFILEPROBE_H

/// Whether an opened file really holds the `frames` frames its header declares at `rate` frames per second:
/// reads one frame a second before that end, then rewinds to frame 0. `file` is a libsndfile `SNDFILE *`
/// (untyped here, so that Swift sees libsndfile's types from one module only). Returns 1 when the frame can be
/// read or `frames` is 0; 0 when it cannot, or when the length is unknown (`SF_COUNT_MAX`, which libsndfile
/// reports for an Ogg stream cut before its last page).
///
/// In C rather than Swift because `splay play` also checks its first file before `main`, on the thread that
/// opens it (CEarlyConnect), and both checks must be the same.
int splay_sound_file_reaches_declared_end(void *file, long long frames, int rate);

#endif
