// The eight-row copies of block-format weights (q4k_rows8.h for Q4_K and Q5_K,
// q6k_rows8.h, iq4xs_rows8.h, q40_rows8.h for Q4_0, Q4_1 and IQ4_NL, q50_rows8.h for Q5_0
// and Q5_1, q80_rows8.h), and the sixteen-row ones of the AVX-512 kernels (Q4_K, Q6_K,
// Q4_0, Q4_1, IQ4_NL, Q5_0, Q5_1), made from the file's bytes.
#include <cstring>

#include <tessera/kit/block_values.h>
#include <tessera/kit/quant_blocks.h>

#include "backends/cpu/ops/iq4xs_rows8.h"
#include "backends/cpu/ops/q40_rows8.h"
#include "backends/cpu/ops/q4k_rows8.h"
#include "backends/cpu/ops/q50_rows8.h"
#include "backends/cpu/ops/q6k_rows8.h"
#include "backends/cpu/ops/q80_rows8.h"

namespace tessera::cpu {
namespace {

// Per group of `Rows` rows and block, each row's block read out of the file's bytes
// and handed to the format's fill(group block, row, file block).
template <class Block, int Rows = 8, class Group, class Fill>
void repack_row_groups(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Group* out, Fill&& fill) {
  for (int64_t g = g_begin; g < g_end; ++g) {
    for (int64_t b = 0; b < blocks; ++b) {
      Group& o = out[(g - g_begin) * blocks + b];
      for (int r = 0; r < Rows; ++r) {
        Block blk;
        std::memcpy(&blk, w + (Rows * g + r) * row_bytes + b * static_cast<int64_t>(sizeof blk), sizeof blk);
        fill(o, r, blk);
      }
    }
  }
}

// Q4_K's fields of a Q4_K or Q5_K block into row r of its group.
template <class Block, int R>
void fill_k4(Q4KRows<R>& o, int r, const Block& blk) {
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

// A Q5_K block into row r of its group: the fifth bits, then Q4_K's fields.
template <int R>
void fill_q5k(Q5KRows<R>& o, int r, const kit::BlockQ5_K& blk) {
  for (int j = 0; j < 8; ++j) std::memcpy(o.qh[j][r], blk.qh + 4 * j, 4);
  fill_k4(o.low, r, blk);
}

// An IQ4_XS block into row r of its group: the scales as bytes, the nibbles, d.
template <int R>
void fill_iq4xs(IQ4XSRows<R>& o, int r, const kit::BlockIQ4_XS& blk) {
  for (int c = 0; c < 8; ++c) o.scales[c / 2][r][c % 2] = static_cast<int8_t>(kit::iq4xs_scale(blk, c));
  for (int c = 0; c < 8; ++c) {
    for (int j = 0; j < 4; ++j) std::memcpy(o.qs[c][j][r], blk.qs + 16 * c + 4 * j, 4);
  }
  o.d[r] = blk.d;
}

// A 32-element format's block into row r of its group: d (Q4_1's m too), then its level
// bytes four at a time.
template <class Group, class Block>
void fill_32(Group& o, int r, const Block& blk) {
  o.d[r] = blk.d;
  if constexpr (requires { blk.m; }) o.m[r] = blk.m;
  const auto* levels = [&] {
    if constexpr (requires { blk.qs; }) {
      return reinterpret_cast<const uint8_t*>(blk.qs);
    } else {
      return reinterpret_cast<const uint8_t*>(blk.q);
    }
  }();
  constexpr int kWords = sizeof(o.qs) / sizeof(o.qs[0]);
  for (int j = 0; j < kWords; ++j) std::memcpy(o.qs[j][r], levels + 4 * j, 4);
}

// A Q5_0 or Q5_1 block into row r of its group: Q4_0's fields (and Q4_1's m), and the
// fifth bits in Q50Rows8::qh's order.
template <class Group, class Block>
void fill_q5(Group& o, int r, const Block& blk) {
  o.d[r] = blk.d;
  if constexpr (requires { blk.m; }) o.m[r] = blk.m;
  for (int j = 0; j < 4; ++j) std::memcpy(o.qs[j][r], blk.qs + 4 * j, 4);
  uint32_t bits;
  std::memcpy(&bits, blk.qh, sizeof bits);
  for (int k = 0; k < 4; ++k) {
    uint8_t byte = 0;
    for (int j = 0; j < 4; ++j) {
      byte |= static_cast<uint8_t>((bits >> (4 * j + k) & 1u) << j);
      byte |= static_cast<uint8_t>((bits >> (16 + 4 * j + k) & 1u) << (4 + j));
    }
    o.qh[r][k] = byte;
  }
}

// A Q6_K block into row r of its group (q6k_rows8.h), four elements at a time: per byte of
// a uint32, the low nibbles of chunks 4 half + 0, 2 in a, of 1, 3 in c, and the four
// chunks' high bit pairs in h.
template <int R>
void fill_q6k(Q6KRows<R>& o, int r, const kit::BlockQ6_K& blk) {
  constexpr uint32_t kNibbles = 0x0F0F0F0Fu, kPairs = 0x03030303u;
  o.d[r] = blk.d;
  for (int half = 0; half < 2; ++half) {
    for (int sixteen = 0; sixteen < 2; ++sixteen) {
      auto& part = o.part[half][sixteen];
      for (int jj = 0; jj < 4; ++jj) {
        const int j = 4 * sixteen + jj;
        uint32_t a, c, h;
        std::memcpy(&a, blk.ql + 64 * half + 4 * j, 4);
        std::memcpy(&c, blk.ql + 64 * half + 32 + 4 * j, 4);
        std::memcpy(&h, blk.qh + 32 * half + 4 * j, 4);
        const uint32_t level[4] = {(a & kNibbles) | (h & kPairs) << 4, (c & kNibbles) | (h >> 2 & kPairs) << 4,
                                   (a >> 4 & kNibbles) | (h >> 4 & kPairs) << 4,
                                   (c >> 4 & kNibbles) | (h >> 6 & kPairs) << 4};
        for (int k = 0; k < 3; ++k) {
          const uint32_t bytes = level[k] | (level[3] >> 2 * k & kPairs) << 6;
          std::memcpy(part.words[jj][k][r], &bytes, 4);
        }
      }
      for (int c = 0; c < 4; ++c) part.scales[c][r] = blk.scales[2 * (4 * half + c) + sixteen];
    }
  }
}

}  // namespace

void repack_q4k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q4KRows8* out) {
  repack_row_groups<kit::BlockQ4_K>(w, row_bytes, blocks, g_begin, g_end, out,
                                    [](Q4KRows8& o, int r, const kit::BlockQ4_K& blk) { fill_k4(o, r, blk); });
}

void repack_q5k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q5KRows8* out) {
  repack_row_groups<kit::BlockQ5_K>(w, row_bytes, blocks, g_begin, g_end, out, fill_q5k<8>);
}

void repack_q6k_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q6KRows8* out) {
  repack_row_groups<kit::BlockQ6_K>(w, row_bytes, blocks, g_begin, g_end, out, fill_q6k<8>);
}

void repack_q6k_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q6KRows16* out) {
  repack_row_groups<kit::BlockQ6_K, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_q6k<16>);
}

void repack_q40_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q40Rows8* out) {
  repack_row_groups<kit::BlockQ4_0>(w, row_bytes, blocks, g_begin, g_end, out, fill_32<Q40Rows8, kit::BlockQ4_0>);
}

void repack_q41_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q41Rows8* out) {
  repack_row_groups<kit::BlockQ4_1>(w, row_bytes, blocks, g_begin, g_end, out, fill_32<Q41Rows8, kit::BlockQ4_1>);
}

void repack_iq4nl_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                        IQ4NLRows8* out) {
  repack_row_groups<kit::BlockIQ4_NL>(w, row_bytes, blocks, g_begin, g_end, out, fill_32<IQ4NLRows8, kit::BlockIQ4_NL>);
}

void repack_q50_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q50Rows8* out) {
  repack_row_groups<kit::BlockQ5_0>(w, row_bytes, blocks, g_begin, g_end, out, fill_q5<Q50Rows8, kit::BlockQ5_0>);
}

void repack_q51_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q51Rows8* out) {
  repack_row_groups<kit::BlockQ5_1>(w, row_bytes, blocks, g_begin, g_end, out, fill_q5<Q51Rows8, kit::BlockQ5_1>);
}

void repack_iq4xs_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                        IQ4XSRows8* out) {
  repack_row_groups<kit::BlockIQ4_XS>(w, row_bytes, blocks, g_begin, g_end, out, fill_iq4xs<8>);
}

void repack_iq4xs_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                         IQ4XSRows16* out) {
  repack_row_groups<kit::BlockIQ4_XS, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_iq4xs<16>);
}

void repack_q80_rows8(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                      Q80Rows8* out) {
  repack_row_groups<kit::BlockQ8_0>(w, row_bytes, blocks, g_begin, g_end, out, fill_32<Q80Rows8, kit::BlockQ8_0>);
}

void repack_q50_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q50Rows16* out) {
  repack_row_groups<kit::BlockQ5_0, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_q5<Q50Rows16, kit::BlockQ5_0>);
}

void repack_q51_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q51Rows16* out) {
  repack_row_groups<kit::BlockQ5_1, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_q5<Q51Rows16, kit::BlockQ5_1>);
}

void repack_q4k_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q4KRows16* out) {
  repack_row_groups<kit::BlockQ4_K, 16>(w, row_bytes, blocks, g_begin, g_end, out,
                                        [](Q4KRows16& o, int r, const kit::BlockQ4_K& blk) { fill_k4(o, r, blk); });
}

void repack_q5k_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q5KRows16* out) {
  repack_row_groups<kit::BlockQ5_K, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_q5k<16>);
}

void repack_q40_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q40Rows16* out) {
  repack_row_groups<kit::BlockQ4_0, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_32<Q40Rows16, kit::BlockQ4_0>);
}

void repack_q41_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                       Q41Rows16* out) {
  repack_row_groups<kit::BlockQ4_1, 16>(w, row_bytes, blocks, g_begin, g_end, out, fill_32<Q41Rows16, kit::BlockQ4_1>);
}

void repack_iq4nl_rows16(const uint8_t* w, int64_t row_bytes, int64_t blocks, int64_t g_begin, int64_t g_end,
                         IQ4NLRows16* out) {
  repack_row_groups<kit::BlockIQ4_NL, 16>(w, row_bytes, blocks, g_begin, g_end, out,
                                          fill_32<IQ4NLRows16, kit::BlockIQ4_NL>);
}

}  // namespace tessera::cpu
