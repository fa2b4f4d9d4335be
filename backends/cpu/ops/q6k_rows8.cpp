// See q6k_rows8.h.
#include "backends/cpu/ops/q6k_rows8.h"

#include <cstring>

#include <tessera/kit/quant_blocks.h>

namespace tessera::cpu {

void repack_q6k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q6KRows8* out) {
  for (int64_t g = g_begin; g < g_end; ++g) {
    for (int64_t b = 0; b < blocks; ++b) {
      Q6KRows8& o = out[(g - g_begin) * blocks + b];
      for (int r = 0; r < 8; ++r) {
        kit::BlockQ6_K blk;
        std::memcpy(&blk, w + (8 * g + r) * row_bytes + b * static_cast<int64_t>(sizeof blk), sizeof blk);
        o.d[r] = blk.d;
        for (int half = 0; half < 2; ++half) {
          for (int sixteen = 0; sixteen < 2; ++sixteen) {
            Q6KRows8::Sixteen& part = o.part[half][sixteen];
            for (int jj = 0; jj < 4; ++jj) {
              const int j = 4 * sixteen + jj;
              std::memcpy(part.words[jj][0][r], blk.ql + 64 * half + 4 * j, 4);
              std::memcpy(part.words[jj][1][r], blk.ql + 64 * half + 32 + 4 * j, 4);
              std::memcpy(part.words[jj][2][r], blk.qh + 32 * half + 4 * j, 4);
            }
            for (int o4 = 0; o4 < 4; ++o4) part.scales[o4][r] = blk.scales[2 * (4 * half + o4) + sixteen];
          }
        }
      }
    }
  }
}

}  // namespace tessera::cpu
