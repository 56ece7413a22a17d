// A truncated file keeps the header of the whole file: libsndfile reports the full length (FLAC, MP3), so the
// player would show a duration that is not true and end early without a word. One seek and a one-frame read
// near the declared end tell. A second of slack, because an MP3 without a gapless header declares a few
// thousand frames more than it decodes.
#include <sndfile.h>
#include <stdio.h>

#include "CSoundFileProbe.h"

int splay_sound_file_reaches_declared_end(void *file, long long frames, int rate) {
  if (frames == SF_COUNT_MAX) return 0;
  if (frames <= 0) return 1;
  float frame[32];  // one frame of up to 32 channels, the most splay accepts
  SF_INFO info;
  if (sf_command(file, SFC_GET_CURRENT_SF_INFO, &info, sizeof info) != 0 || info.channels < 1 || info.channels > 32) {
    return 0;
  }
  sf_count_t probe = frames > rate ? frames - rate : 0;
  sf_count_t read = sf_seek(file, probe, SEEK_SET) >= 0 ? sf_readf_float(file, frame, 1) : 0;
  (void)sf_seek(file, 0, SEEK_SET);
  return read == 1;
}
