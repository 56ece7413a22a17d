// libsndfile decodes MP3 through libmpg123 and never sets its MPG123_QUIET flag, so libmpg123 writes its own
// warnings ("Warning: Xing stream size off by more than 1%...") to stderr: on top of splay's one-line error
// for a damaged file, and across the live view while one plays. libsndfile gives no way to reach the
// handle, so the splay executable defines its own `mpg123_new`. The linker exports it (libsndfile, on the link
// line, refers to the name) and the dynamic linker resolves libsndfile's call to the executable first; this
// one creates the handle with libmpg123's real function and marks it quiet. splay reports every failure
// itself, from libsndfile's error codes.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <mpg123.h>

#include "CMpg123Quiet.h"

typedef mpg123_handle *(*NewHandle)(const char *decoder, int *error);
typedef int (*SetParameter)(mpg123_handle *handle, enum mpg123_parms type, long value, double fvalue);

mpg123_handle *mpg123_new(const char *decoder, int *error) {
  // Looked up on every call: a handle is made once per opened MP3, and dlsym is cheap beside decoding.
  NewHandle real = (NewHandle)dlsym(RTLD_NEXT, "mpg123_new");
  if (real == NULL) {
    if (error != NULL) *error = MPG123_ERR;
    return NULL;
  }
  mpg123_handle *handle = real(decoder, error);
  // mpg123.h maps mpg123_param to mpg123_param2 in this version; the name libmpg123 exports is looked up.
  SetParameter set = (SetParameter)dlsym(RTLD_NEXT, "mpg123_param2");
  if (set == NULL) set = (SetParameter)dlsym(RTLD_NEXT, "mpg123_param");
  if (handle != NULL && set != NULL) set(handle, MPG123_ADD_FLAGS, MPG123_QUIET, 0.0);
  return handle;
}
