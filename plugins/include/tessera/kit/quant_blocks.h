// The storage blocks of the quantised dtypes, as GGUF files hold them (ggml's block
// layouts): one struct per format, sized exactly as on disk. A row of a quantised
// tensor is an array of these. plugin_abi.h lists each format's value formula;
// <tessera/kit/dequantize.h> is its executable form.
#pragma once

#include <cstdint>

#include <tessera/kit/host_device.h>

namespace tessera::kit {

inline constexpr int kQK = 32;    // elements per block of the 32-element formats
inline constexpr int kQKK = 256;  // elements per super-block of the K formats
inline constexpr int kK4ScaleBytes = 12;  // 8 six-bit scales and 8 six-bit mins (Q4_K, Q5_K)

// d: f16 scale. value = d * q[i].
struct BlockQ8_0 {
  uint16_t d;
  int8_t q[kQK];
};
// value = d * (u - 8), u = nibble i (qs[i] & 15 for i < 16, qs[i - 16] >> 4 after).
struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[kQK / 2];
};
// value = d * u + m.
struct BlockQ4_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qs[kQK / 2];
};
// u = nibble i | (bit i of the little-endian u32 qh) << 4; value = d * (u - 16).
struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];
  uint8_t qs[kQK / 2];
};
// value = d * u + m.
struct BlockQ5_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qh[4];
  uint8_t qs[kQK / 2];
};
// value = d * kIq4nlValues[u], u as for Q4_0.
struct BlockIQ4_NL {
  uint16_t d;
  uint8_t qs[kQK / 2];
};

// 16 sub-blocks of 16. scales[s]: low nibble the scale, high nibble the min of sub-block
// s. Element e = 128 g + 32 j + l (g < 2, j < 4, l < 32): q = qs[32 g + l] >> 2 j & 3,
// sub-block e / 16; value = d * scale * q - dmin * min.
struct BlockQ2_K {
  uint8_t scales[kQKK / 16];
  uint8_t qs[kQKK / 4];
  uint16_t d;
  uint16_t dmin;
};
// 16 sub-blocks of 16. Low 2 bits as Q2_K's qs; the third bit of element 32 b + l is
// bit b of hmask[l], and a CLEAR bit subtracts 4: q = low - (bit ? 0 : 4). Scales are
// 6 bits minus 32: sub-block k's low nibble is scales[k % 8] >> 4 (k / 8), its high
// 2 bits scales[8 + k % 4] >> 2 (k / 4). value = d * scale * q.
struct BlockQ3_K {
  uint8_t hmask[kQKK / 8];
  uint8_t qs[kQKK / 4];
  uint8_t scales[12];
  uint16_t d;
};
// 8 sub-blocks of 32; scales holds 8 six-bit scales and mins (see k4_scale_min).
// Element e = 64 g + 32 h + l: u = qs[32 g + l] >> 4 h & 15, sub-block e / 32;
// value = d * scale * u - dmin * min.
struct BlockQ4_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kK4ScaleBytes];
  uint8_t qs[kQKK / 2];
};
// As Q4_K with a fifth bit: bit b of qh[l] for element 32 b + l.
struct BlockQ5_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kK4ScaleBytes];
  uint8_t qh[kQKK / 8];
  uint8_t qs[kQKK / 2];
};
// 16 sub-blocks of 16 with int8 scales. Element e = 128 g + o (o < 128): low nibble
// ql[64 g + o % 64] >> 4 (o / 64), high 2 bits qh[32 g + o % 32] >> 2 (o / 32);
// value = d * scales[e / 16] * (q - 32).
struct BlockQ6_K {
  uint8_t ql[kQKK / 2];
  uint8_t qh[kQKK / 4];
  int8_t scales[kQKK / 16];
  uint16_t d;
};
// 8 sub-blocks of 32 with 6-bit scales minus 32: low nibble (scales_l[k / 2] >> 4 (k % 2)),
// high 2 bits scales_h >> 2 k. Element 32 j + 16 h + l: u = qs[16 j + l] >> 4 h & 15;
// value = d * scale * kIq4nlValues[u].
struct BlockIQ4_XS {
  uint16_t d;
  uint16_t scales_h;
  uint8_t scales_l[kQKK / 64];
  uint8_t qs[kQKK / 2];
};

static_assert(sizeof(BlockQ8_0) == 34 && sizeof(BlockQ4_0) == 18 && sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22 && sizeof(BlockQ5_1) == 24 && sizeof(BlockIQ4_NL) == 18);
static_assert(sizeof(BlockQ2_K) == 84 && sizeof(BlockQ3_K) == 110 && sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176 && sizeof(BlockQ6_K) == 210 && sizeof(BlockIQ4_XS) == 136);

// The 16 levels of IQ4_NL and IQ4_XS (a non-uniform 4-bit grid).
inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// Level u (0..15) of that grid; device code cannot read the host array above.
TSR_HD inline int iq4nl_value(int u) {
#if defined(__CUDA_ARCH__)
  const int8_t levels[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};
  return levels[u];
#else
  return kIq4nlValues[u];
#endif
}

// Sub-block j's (j < 8) six-bit scale and min of a Q4_K / Q5_K `scales` array: bytes
// 0-3 hold scales 0-3 in their low 6 bits, bytes 4-7 mins 0-3; byte 8 + i holds the low
// 4 bits of scale 4 + i (low nibble) and of min 4 + i (high nibble), whose top 2 bits
// are the top bits of bytes i and 4 + i.
TSR_HD inline void k4_scale_min(const uint8_t* scales, int j, uint8_t* scale, uint8_t* min) {
  if (j < 4) {
    *scale = scales[j] & 63;
    *min = scales[j + 4] & 63;
  } else {
    *scale = static_cast<uint8_t>((scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4));
    *min = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
  }
}

}  // namespace tessera::kit
