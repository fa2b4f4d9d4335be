// See q4k_rows8.h.
#include "backends/cpu/ops/q4k_rows8.h"

#include <cstring>

#include <tessera/kit/quant_blocks.h>

namespace tessera::cpu {

void repack_q4k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q4KRows8* out) {
  for (int64_t g = g_begin; g < g_end; ++g) {
    for (int64_t b = 0; b < blocks; ++b) {
      Q4KRows8& o = out[(g - g_begin) * blocks + b];
      for (int r = 0; r < 8; ++r) {
        kit::BlockQ4_K blk;
        std::memcpy(&blk, w + (8 * g + r) * row_bytes + b * static_cast<int64_t>(sizeof blk), sizeof blk);
        o.d[r] = blk.d;
        o.dmin[r] = blk.dmin;
        for (int c = 0; c < 8; ++c) {
          uint8_t sc = 0, mn = 0;
          kit::k4_scale_min(blk.scales, c, &sc, &mn);
          o.pair[c / 2].scales[c % 2][r] = sc;
          o.mins[c / 2][r][c % 2] = mn;
        }
        for (int p = 0; p < 4; ++p) {
          for (int j = 0; j < 8; ++j) std::memcpy(o.pair[p].qs[j][r], blk.qs + 32 * p + 4 * j, 4);
        }
      }
    }
  }
}

}  // namespace tessera::cpu
