#ifndef SPLAY_CPULSEAUDIO_SHIM_H
#define SPLAY_CPULSEAUDIO_SHIM_H
// The asynchronous libpulse API: threaded mainloop, context, stream, introspection.
#include <pulse/pulseaudio.h>
#endif
