// Quantises the rows of x [N, K] f32 (K a multiple of 32) for the int8-dot MATMUL
// (matmul_vec_int8): per block of 32 values, the scale d = max|x| / 127 (f32) and the
// values q = x / d rounded half away from zero, as int8, four to a 32-bit word (the
// first value in the low byte). One invocation per block.
//   out [N * K / 32, 9] i32: block b at 9b = the bits of d, then its 8 words.
// A block of zeros gets d = 0 and q = 0 (no division by zero, no NaN).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 64u;

layout(push_constant) uniform Push {
  FloatRef x;
  IntRef out_;
  uint blocks;  // N * K / 32
  uint unused;
} p;

// round(v) with halves away from zero, as the CPU's q8_0 quantiser (std::round) does;
// floor(abs(v) + 0.5) would round 0.49999997 up.
float round_half_away(float v) {
  const float t = trunc(v);
  return abs(v - t) >= 0.5 ? t + sign(v) : t;
}

void main() {
  const uint b = flat_group_id() * WG + gl_LocalInvocationID.x;
  if (b >= p.blocks) return;
  const uint first = b * Q8_BLOCK_ELEMS;
  float values[Q8_BLOCK_ELEMS];
  float amax = 0.0;
  for (uint j = 0u; j < Q8_BLOCK_ELEMS; ++j) {
    values[j] = p.x.v[first + j];
    amax = max(amax, abs(values[j]));
  }
  const float d = amax / 127.0;
  const float inv = d != 0.0 ? 1.0 / d : 0.0;
  const uint base = b * Q8_PACKED_BLOCK_WORDS;
  p.out_.v[base] = floatBitsToInt(d);
  for (uint w = 0u; w < 8u; ++w) {
    int word = 0;
    for (uint j = 0u; j < 4u; ++j) {
      const int q = int(clamp(round_half_away(values[4u * w + j] * inv), -127.0, 127.0));
      word = bitfieldInsert(word, q, int(8u * j), 8);
    }
    p.out_.v[base + 1u + w] = word;
  }
}
