// Q6_K weights regrouped for decode, as q4k_rows8.h does for Q4_K: eight rows per group
// (sixteen for AVX-512), and per group and super-block the rows' 6-bit levels of four chunks
// packed three bytes to four levels, four bytes at a time, so one 32-byte (64-byte) load
// holds the same four bytes of every row, with their scales and d. The bytes lie in the
// order the kernel reads them: the processor's prefetchers follow one forward stream, and
// an earlier layout (all ql, then all qh, read in a jumping order) halved q6_k decode. The
// same 210 bytes per row and super-block as the GGUF layout: decode reads no more bytes than
// from the file.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// A Q6_K super-block: ql[128], qh[64], scales[16] (int8, one per 16 elements), d (f16).
// Element 128 g + 32 o + l (g < 2, o < 4, l < 32) is
//   (ql[64 g + 32 (o % 2) + l] >> 4 (o / 2) & 15) | (qh[32 g + l] >> 2 o & 3) << 4,  minus 32.
// Groups of R = 8 rows for 256-bit vectors; of 16 for the AVX-512 kernel, where one
// 64-byte load holds a word of sixteen rows.
template <int R>
struct Q6KRows {
  // Sixteen `sixteen` (0, 1) of chunks 4 half .. 4 half + 3: per word j (its elements 4 j ..
  // 4 j + 3 of each chunk, j = 4 sixteen + jj), three bytes per element and row holding the
  // levels L0..L3 (0..63) of the four chunks: byte k = L_k | (bits 2k, 2k + 1 of L3) << 6,
  // k = 0, 1, 2. The first three levels are then one mask each, the fourth three shifts
  // and a join: per word 9 vector operations on AVX-512 and 11 on AVX2, against 13 and 21
  // from GGUF's nibbles and bit pairs. Then the chunks' scales.
  struct Sixteen {
    uint8_t words[4][3][R][4];  // [jj][k][row]
    int8_t scales[4][R];        // [o][row]: scale 2 (4 half + o) + sixteen
  } part[2][2];                 // [half][sixteen]
  uint16_t d[R];                // f16; row r in [r]
};
using Q6KRows8 = Q6KRows<8>;
using Q6KRows16 = Q6KRows<16>;
static_assert(sizeof(Q6KRows8) == 8 * 210 && sizeof(Q6KRows16) == 16 * 210);

// Groups [g_begin, g_end) of eight (sixteen) rows of a Q6_K matrix (rows at w + r * row_bytes,
// `blocks` super-blocks each) into out[(g - g_begin) * blocks + b].
void repack_q6k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q6KRows8* out);
void repack_q6k_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q6KRows16* out);

}  // namespace tessera::cpu
