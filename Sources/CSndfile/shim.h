#ifndef SPLAY_CSNDFILE_SHIM_H
#define SPLAY_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
