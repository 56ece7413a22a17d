#ifndef SPLAY_CFAAD_H
#define SPLAY_CFAAD_H

// FAAD2 (libfaad), the AAC decoder splay uses for AAC-LC in MP4/M4A files, loaded on first use like FFmpeg (see
// CFFmpeg.h): most runs never open an M4A file, and those that do need only this one small library rather than
// FFmpeg's 130 (about 25 MB of resident pages). Only the header is used at build time (libfaad-dev); the library
// is optional at run time (Debian: libfaad2).

#include <neaacdec.h>

/// Loads libfaad once per process (later calls return at once). Returns NULL when loaded, else a message saying
/// what is missing. Thread-safe.
const char *splay_faad_load(void);

// FAAD2's functions, as loaded by splay_faad_load() (call it first, and only on success call these).
NeAACDecHandle splay_NeAACDecOpen(void);
NeAACDecConfigurationPtr splay_NeAACDecGetCurrentConfiguration(NeAACDecHandle decoder);
unsigned char splay_NeAACDecSetConfiguration(NeAACDecHandle decoder, NeAACDecConfigurationPtr configuration);
char splay_NeAACDecInit2(NeAACDecHandle decoder, unsigned char *config, unsigned long size,
                         unsigned long *sampleRate, unsigned char *channels);
void *splay_NeAACDecDecode(NeAACDecHandle decoder, NeAACDecFrameInfo *info, unsigned char *buffer,
                           unsigned long size);
char *splay_NeAACDecGetErrorMessage(unsigned char code);
void splay_NeAACDecClose(NeAACDecHandle decoder);

#endif
