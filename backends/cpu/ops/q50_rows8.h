// Q5_0 and Q5_1 weights regrouped for decode, as q40_rows8.h does for Q4_0: eight rows per
// group (sixteen for AVX-512), and per group and block the rows' fifth bits, their 16 bytes of nibbles
// interleaved four bytes at a time, then their eight d (and Q5_1's eight m). The fifth
// bits are reordered within each row's four bytes so that, for word j of the nibbles, one
// shift by a constant and a mask put the fifth bits of its eight low and eight high
// nibbles at bit 4 of the matching bytes: the levels of eight rows take four more
// instructions per 32-byte load than Q4_0's. The same 22 (Q5_1: 24) bytes per row and
// block as the file, in the order the kernel reads them.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// A Q5_0 block: d (f16), qh (bit i of the little-endian u32 the fifth bit of element i),
// then Q4_0's 16 bytes of nibbles; value = d * ((nibble | fifth bit << 4) - 16).
template <int R>
struct Q50Rows {
  // [row]: byte k holds, at bit j, the fifth bit of element 4j + k and, at bit 4 + j, that
  // of element 16 + 4j + k (j < 4): word j's low and high nibbles at byte k.
  uint8_t qh[R][4];
  uint8_t qs[4][R][4];  // [word j][row]: bytes 4j .. 4j + 3 of the row's 16
  uint16_t d[R];        // f16; row r in [r]
};
using Q50Rows8 = Q50Rows<8>;
using Q50Rows16 = Q50Rows<16>;
static_assert(sizeof(Q50Rows8) == 8 * 22 && sizeof(Q50Rows16) == 16 * 22);

// A Q5_1 block: d, m (f16), qh, the nibbles; value = d * (nibble | fifth bit << 4) + m.
template <int R>
struct Q51Rows {
  uint8_t qh[R][4];     // as Q50Rows's
  uint8_t qs[4][R][4];  // [word j][row]: bytes 4j .. 4j + 3 of the row's 16
  uint16_t d[R], m[R];  // f16; row r in [r]
};
using Q51Rows8 = Q51Rows<8>;
using Q51Rows16 = Q51Rows<16>;
static_assert(sizeof(Q51Rows8) == 8 * 24 && sizeof(Q51Rows16) == 16 * 24);

// Groups [g_begin, g_end) of eight (sixteen) rows of a Q5_0 (Q5_1) matrix (rows at w + r * row_bytes,
// `blocks` blocks each) into out[(g - g_begin) * blocks + b].
void repack_q50_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q50Rows8* out);
void repack_q51_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q51Rows8* out);
void repack_q50_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q50Rows16* out);
void repack_q51_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q51Rows16* out);

}  // namespace tessera::cpu
