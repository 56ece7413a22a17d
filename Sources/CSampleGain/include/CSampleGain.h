#ifndef SPLAY_CSAMPLEGAIN_H
#define SPLAY_CSAMPLEGAIN_H

#include <stddef.h>
#include <stdint.h>

/// Scales `count` 16-bit samples in place by `factor` / 32768 (0 <= factor < 32768, a cut), rounding half up:
/// `(sample * factor + 16384) >> 15`, the same result on every CPU.
void splay_gain_cut_s16(int16_t *samples, size_t count, int16_t factor);

#endif
