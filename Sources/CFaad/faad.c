#include "CFaad.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Every function splay calls: FUNCTION(return type, name, parameters, arguments), or VOID(...) for one that returns
// nothing. Each gets a pointer in `table` and a splay_-prefixed wrapper declared in CFaad.h.
#define FUNCTIONS(FUNCTION, VOID)                                                                                     \
  FUNCTION(NeAACDecHandle, NeAACDecOpen, (void), ())                                                                  \
  FUNCTION(NeAACDecConfigurationPtr, NeAACDecGetCurrentConfiguration, (NeAACDecHandle decoder), (decoder))           \
  FUNCTION(unsigned char, NeAACDecSetConfiguration,                                                                   \
           (NeAACDecHandle decoder, NeAACDecConfigurationPtr configuration), (decoder, configuration))                \
  FUNCTION(char, NeAACDecInit2,                                                                                       \
           (NeAACDecHandle decoder, unsigned char *config, unsigned long size, unsigned long *sampleRate,             \
            unsigned char *channels),                                                                                 \
           (decoder, config, size, sampleRate, channels))                                                             \
  FUNCTION(void *, NeAACDecDecode,                                                                                    \
           (NeAACDecHandle decoder, NeAACDecFrameInfo *info, unsigned char *buffer, unsigned long size),              \
           (decoder, info, buffer, size))                                                                             \
  FUNCTION(char *, NeAACDecGetErrorMessage, (unsigned char code), (code))                                             \
  VOID(void, NeAACDecClose, (NeAACDecHandle decoder), (decoder))

#define FIELD(type, name, parameters, arguments) type (*name) parameters;
static struct {
  FUNCTIONS(FIELD, FIELD)
} table;

#define WRAPPER(type, name, parameters, arguments)                                                                    \
  type splay_##name parameters { return table.name arguments; }
#define VOID_WRAPPER(type, name, parameters, arguments)                                                               \
  void splay_##name parameters { table.name arguments; }
FUNCTIONS(WRAPPER, VOID_WRAPPER)

static char failure[512];
static int loaded;

static void load(void) {
  // RTLD_LOCAL, as for FFmpeg: its symbols stay out of the namespace the other libraries resolve theirs in.
  void *handle = dlopen("libfaad.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    snprintf(failure, sizeof failure, "FAAD2 is not installed (%s)", dlerror());
    return;
  }
#define RESOLVE(type, name, parameters, arguments)                                                                    \
  if (!(*(void **)&table.name = dlsym(handle, #name))) {                                                              \
    snprintf(failure, sizeof failure, "libfaad.so.2 has no %s", #name);                                               \
    return;                                                                                                           \
  }
  FUNCTIONS(RESOLVE, RESOLVE)
  loaded = 1;
}

const char *splay_faad_load(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, load);
  return loaded ? NULL : failure;
}
