// KV_WRITE: x f32 [T, width], slot i32 [T]; cache [n_slots, width] in DTYPE (f32, f16
// or q8_0), written in place: cache[slot[t], :] = x[t, :]. A slot outside the cache is
// reported and its row skipped. f32 and f16: one invocation per element of x; q8_0: one
// invocation per 32-value block of x, quantised bit for bit like the CPU reference
// (backends/cpu/ops/kv_write.cpp).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint DTYPE = 0u;

layout(push_constant) uniform Push {
  FloatRef x;
  IntRef slot;
  HalfRef cache;
  StatusRef status;
  uint n_tokens;
  uint width;
  uint n_slots;
  uint call_id;
} p;

// f32 -> f16 bits, rounded to nearest even with f16 subnormals kept, as the CPU's
// f32_to_f16 does: packHalf2x16 leaves rounding and subnormals to the implementation,
// and the block scale must come out bit-identical.
uint f16_bits(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16) & 0x8000u;
  const uint a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u);  // inf, nan
  if (a >= 0x477ff000u) return sign | 0x7c00u;                                     // rounds to inf
  if (a < 0x38800000u) {                                                           // subnormal or 0
    if (a < 0x33000000u) return sign;
    const uint shift = 126u - (a >> 23);  // 113 - exponent + 13: from 14 to 24
    const uint mant = (a & 0x7fffffu) | 0x800000u;
    const uint rem = mant & ((1u << shift) - 1u);
    const uint halfway = 1u << (shift - 1u);
    uint h = mant >> shift;
    if (rem > halfway || (rem == halfway && (h & 1u) != 0u)) ++h;
    return sign | h;
  }
  uint h = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13);
  const uint rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) ++h;
  return sign | h;
}

// The value of non-negative f16 bits, decoded with integer arithmetic so that a
// subnormal scale is not flushed to zero.
float f16_value(uint h) {
  const uint e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0u) return float(m) * exp2(-24.0);
  return uintBitsToFloat(((e + 112u) << 23) | (m << 13));
}

// std::lround (halves away from zero) of a value already clamped to [-127, 127]: GLSL's
// round() leaves the direction of halves to the implementation. v - trunc(v) is exact.
int round_half_away(float v) {
  const float t = trunc(v);
  return int(t) + (abs(v - t) >= 0.5 ? int(sign(v)) : 0);
}

// Quantises x[src .. src + 32) into q8_0 block `block` of the cache: d = f16(max|x| / 127),
// q = clamp(lround(x / d'), -127, 127) with d' the scale as stored (0 when d' is 0).
void write_q8_0_block(uint src, uint block) {
  float amax = 0.0;
  for (uint j = 0u; j < Q8_BLOCK_ELEMS; ++j) {
    const float a = abs(p.x.v[src + j]);
    if (a > amax) amax = a;  // like fmax: a NaN does not become the maximum
  }
  const uint d_bits = f16_bits(amax / 127.0);
  const float d = f16_value(d_bits);
  const float inv = d > 0.0 ? 1.0 / d : 0.0;
  const uint dst = block * Q8_BLOCK_HALVES;
  p.cache.v[dst] = uint16_t(d_bits);
  for (uint j = 0u; j < Q8_BLOCK_ELEMS; j += 2u) {
    const int q0 = round_half_away(clamp(p.x.v[src + j] * inv, -127.0, 127.0));
    const int q1 = round_half_away(clamp(p.x.v[src + j + 1u] * inv, -127.0, 127.0));
    p.cache.v[dst + 1u + j / 2u] = uint16_t((uint(q0) & 0xffu) | ((uint(q1) & 0xffu) << 8));
  }
}

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  // e is an element of x, or for q8_0 a block of x.
  const uint row_units = DTYPE == DTYPE_Q8_0 ? p.width / Q8_BLOCK_ELEMS : p.width;
  if (e >= p.n_tokens * row_units) return;
  const uint t = e / row_units, c = e % row_units;
  const int s = p.slot.v[t];
  if (s < 0 || uint(s) >= p.n_slots) {
    if (c == 0u) report_error(p.status, p.call_id, 1u, int(t), s);
    return;
  }
  const uint dst = uint(s) * row_units + c;
  if (DTYPE == DTYPE_Q8_0) {
    write_q8_0_block(e * Q8_BLOCK_ELEMS, dst);
  } else if (DTYPE == DTYPE_F16) {
    p.cache.v[dst] = uint16_t(packHalf2x16(vec2(p.x.v[e], 0.0)));
  } else {
    FloatRef(p.cache).v[dst] = p.x.v[e];
  }
}
