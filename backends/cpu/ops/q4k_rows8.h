// Q4_K and Q5_K weights regrouped for decode: eight rows per group (sixteen for AVX-512), and per group and super-block
// the eight rows' d and dmin, their chunk scales and mins unpacked, and their 4-bit levels
// interleaved four bytes at a time. One 32-byte load then holds the same four bytes of
// eight rows, and one vpdpbusd against four broadcast x values gives eight rows' partial
// dots with lane r = row r: no per-row lane sums and no per-row scale shuffles, which kept
// the GGUF-layout kernel below the memory bandwidth on some processors. Made once per
// weight from its GGUF bytes (repacked_weights.h); the rows after the last whole group
// are read in the GGUF layout.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// A Q4_K super-block: d, dmin (f16), 12 bytes of scales and mins, 128 bytes of levels;
// its 32 bytes at 16 + 32 p hold chunk 2p in the low nibbles, chunk 2p + 1 in the high.
// The bytes lie in the order the kernel reads them (a forward stream the processor's
// prefetchers follow; see q6k_rows8.h).
// Groups of R = 8 rows for 256-bit vectors; of 16 for the AVX-512 kernel, where one
// 64-byte load holds a word of sixteen rows.
template <int R>
struct Q4KRows {
  struct Pair {
    uint8_t qs[8][R][4];   // [word j][row]: bytes 4j .. 4j + 3 of the pair's 32
    uint8_t scales[2][R];  // [chunk 2p + c][row], 6 bits
  } pair[4];               // [chunk pair p]
  uint16_t d[R], dmin[R];  // f16; row r in [r]
  int16_t mins[4][R][2];   // [chunk pair p][row]: the mins of chunks 2p and 2p + 1
};
using Q4KRows8 = Q4KRows<8>;
using Q4KRows16 = Q4KRows<16>;
static_assert(sizeof(Q4KRows8) == 1248 && sizeof(Q4KRows16) == 2 * 1248);

// A Q5_K super-block: Q4_K's fields and 32 bytes of fifth bits, qh, bit c of byte l the
// fifth bit of element 32 c + l. The copy is Q4_K's with the eight rows' qh interleaved
// the same way ahead of it: each chunk pair reads them again, from the first-level cache.
template <int R>
struct Q5KRows {
  uint8_t qh[8][R][4];  // [word j][row]: bytes 4j .. 4j + 3 of the row's 32
  Q4KRows<R> low;       // d, dmin, scales, mins and the low four bits, as Q4_K's
};
using Q5KRows8 = Q5KRows<8>;
using Q5KRows16 = Q5KRows<16>;
static_assert(sizeof(Q5KRows8) == 256 + 1248 && sizeof(Q5KRows16) == 2 * sizeof(Q5KRows8));

// Groups [g_begin, g_end) of eight rows of a Q4_K (Q5_K) matrix (rows at w + r * row_bytes,
// `blocks` super-blocks each) into out[(g - g_begin) * blocks + b].
void repack_q4k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q4KRows8* out);
void repack_q5k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q5KRows8* out);
// Groups of sixteen rows of a Q4_K (Q5_K) matrix, likewise.
void repack_q4k_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q4KRows16* out);
void repack_q5k_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q5KRows16* out);

}  // namespace tessera::cpu
