// IQ4_XS weights regrouped for decode, as q4k_rows8.h does for Q4_K: eight rows per group
// (sixteen for AVX-512), and per group and super-block the eight rows' scales unpacked to
// bytes, then per chunk of 32 their 16 bytes of nibbles interleaved four bytes at a time,
// then their eight d.
// One 32-byte load holds the same four bytes of eight rows; a table lookup (vpshufb) turns
// its low and high nibbles into levels, and one vpdpbusd each against four broadcast x
// values gives eight rows' partial dots, lane r = row r. The scales as bytes, two chunks'
// per row side by side, are the int16 pairs one vpmaddwd meets x's chunk sums with (the
// share of the levels' bias), where the file's packed 6-bit fields took seven vector
// operations per chunk to unpack: 138 bytes per row and super-block against the file's
// 136, in the order the kernel reads them.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// An IQ4_XS super-block: d (f16), scales_h, scales_l[4], 128 bytes of nibbles; chunk c
// (elements 32 c ..) has its 16 bytes at 16 c, elements 0..15 in the low nibbles and
// 16..31 in the high ones, and the scale (bits 4c .. 4c + 3 of scales_l as a
// little-endian u32 | bits 2c, 2c + 1 of scales_h << 4) - 32;
// value = d * scale * kIq4nlValues[nibble].
// Groups of R = 8 rows for 256-bit vectors; of 16 for the AVX-512 kernel.
template <int R>
struct IQ4XSRows {
  int8_t scales[4][R][2];  // [chunk pair p][row]: the scales of chunks 2p and 2p + 1
  uint8_t qs[8][4][R][4];  // [chunk c][word j][row]: bytes 16 c + 4j .. 16 c + 4j + 3
  uint16_t d[R];           // f16; row r in [r]
};
using IQ4XSRows8 = IQ4XSRows<8>;
using IQ4XSRows16 = IQ4XSRows<16>;
static_assert(sizeof(IQ4XSRows8) == 8 * 138 && sizeof(IQ4XSRows16) == 16 * 138);

// Groups [g_begin, g_end) of eight rows of an IQ4_XS matrix (rows at w + r * row_bytes,
// `blocks` super-blocks each) into out[(g - g_begin) * blocks + b].
void repack_iq4xs_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                        IQ4XSRows8* out);
// Groups of sixteen rows, likewise.
void repack_iq4xs_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                         IQ4XSRows16* out);

}  // namespace tessera::cpu
