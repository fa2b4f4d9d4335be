// Q8_0 weights regrouped for decode, as q40_rows8.h does for Q4_0: eight rows per group,
// and per group and block the eight rows' 32 levels interleaved four bytes at a time,
// then their eight d. One 32-byte load holds elements 4j .. 4j + 3 of eight rows, and one
// vpdpbusd against four broadcast x values gives eight rows' partial dots, lane r = row r.
// The same 34 bytes per row and block as the file, in the order the kernel reads them.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// A Q8_0 block: d (f16), then 32 int8 levels; value = d * level.
struct Q80Rows8 {
  int8_t qs[8][8][4];  // [word j][row]: levels 4j .. 4j + 3
  uint16_t d[8];       // f16; row r in [r]
};
static_assert(sizeof(Q80Rows8) == 8 * 34);

// Groups [g_begin, g_end) of eight rows of a Q8_0 matrix (rows at w + r * row_bytes,
// `blocks` blocks each) into out[(g - g_begin) * blocks + b].
void repack_q80_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q80Rows8* out);

}  // namespace tessera::cpu
