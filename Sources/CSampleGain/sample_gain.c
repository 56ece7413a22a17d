// ReplayGain's cut of 16-bit samples, the common case of a gain (a boost is rare and stays in Swift). Swift
// vectorizes the 32-bit products with SSE2's pmuludq and shuffles, about a cycle a sample; pmaddwd forms
// `sample * factor + 16384` for four samples in one instruction when each sample is paired with 1.
#include "CSampleGain.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void splay_gain_cut_s16(int16_t *samples, size_t count, int16_t factor) {
  size_t index = 0;
#if defined(__SSE2__)
  // Pairs (sample, 1) times (factor, 16384): each 32-bit lane is sample * factor + 16384.
  const __m128i weights = _mm_set1_epi32((int32_t)((uint32_t)16384 << 16 | (uint16_t)factor));
  const __m128i ones = _mm_set1_epi16(1);
  for (; index + 8 <= count; index += 8) {
    __m128i eight = _mm_loadu_si128((const __m128i *)(samples + index));
    __m128i low = _mm_srai_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(eight, ones), weights), 15);
    __m128i high = _mm_srai_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(eight, ones), weights), 15);
    _mm_storeu_si128((__m128i *)(samples + index), _mm_packs_epi32(low, high));
  }
#endif
  for (; index < count; index++) samples[index] = (int16_t)(((int32_t)samples[index] * factor + 16384) >> 15);
}
