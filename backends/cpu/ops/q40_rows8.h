// Q4_0 and Q4_1 weights regrouped for decode, as q4k_rows8.h does for Q4_K: eight rows
// per group (sixteen for AVX-512), and per group and block the rows' 16 bytes of nibbles
// interleaved four bytes at a time, then their d (and Q4_1's m). One 32-byte load holds the
// same four bytes of eight rows: its low nibbles are elements 4j .. 4j + 3 and its high
// nibbles elements 16 + 4j .. 16 + 4j + 3 of each row, and one vpdpbusd against four
// broadcast x values gives eight rows' partial dots, lane r = row r, where the file's
// layout takes a load per row and three rounds of lane sums. The same 18 (Q4_1: 20) bytes
// per row and block as the file, in the order the kernel reads them. IQ4_NL's blocks are
// Q4_0's bytes with other levels, and are copied the same way.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// A Q4_0 block: d (f16), then 16 bytes, element i < 16 in byte i's low nibble, element
// 16 + i in its high nibble; value = d * (nibble - 8). Groups of R = 8 rows for 256-bit
// vectors; of 16 for the AVX-512 kernels, where one 64-byte load holds a word of 16 rows.
template <int R>
struct Q40Rows {
  uint8_t qs[4][R][4];  // [word j][row]: bytes 4j .. 4j + 3 of the row's 16
  uint16_t d[R];        // f16; row r in [r]
};
using Q40Rows8 = Q40Rows<8>;
using Q40Rows16 = Q40Rows<16>;
static_assert(sizeof(Q40Rows8) == 8 * 18 && sizeof(Q40Rows16) == 16 * 18);

// A Q4_1 block: d, m (f16), then the nibbles as Q4_0's; value = d * nibble + m.
template <int R>
struct Q41Rows {
  uint8_t qs[4][R][4];  // [word j][row]: bytes 4j .. 4j + 3 of the row's 16
  uint16_t d[R], m[R];  // f16; row r in [r]
};
using Q41Rows8 = Q41Rows<8>;
using Q41Rows16 = Q41Rows<16>;
static_assert(sizeof(Q41Rows8) == 8 * 20 && sizeof(Q41Rows16) == 16 * 20);

// An IQ4_NL block: Q4_0's bytes; value = d * kIq4nlValues[nibble] (kit/quant_blocks.h).
template <int R>
struct IQ4NLRows : Q40Rows<R> {};
using IQ4NLRows8 = IQ4NLRows<8>;
using IQ4NLRows16 = IQ4NLRows<16>;
static_assert(sizeof(IQ4NLRows8) == 8 * 18 && sizeof(IQ4NLRows16) == 16 * 18);

// Groups [g_begin, g_end) of eight (sixteen) rows of a Q4_0 (Q4_1, IQ4_NL) matrix (rows
// at w + r * row_bytes, `blocks` blocks each) into out[(g - g_begin) * blocks + b].
void repack_q40_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q40Rows8* out);
void repack_q41_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q41Rows8* out);
void repack_iq4nl_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                        IQ4NLRows8* out);
void repack_q40_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q40Rows16* out);
void repack_q41_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q41Rows16* out);
void repack_iq4nl_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                         IQ4NLRows16* out);

}  // namespace tessera::cpu
