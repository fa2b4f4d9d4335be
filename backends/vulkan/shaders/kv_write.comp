// KV_WRITE: x f32 [T, width], slot i32 [T]; cache [n_slots, width] in DTYPE (f32 or
// f16), written in place: cache[slot[t], :] = x[t, :]. A slot outside the cache is
// reported and its row skipped. One invocation per element of x.
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

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.n_tokens * p.width) return;
  const uint t = e / p.width, c = e % p.width;
  const int s = p.slot.v[t];
  if (s < 0 || uint(s) >= p.n_slots) {
    if (c == 0u) report_error(p.status, p.call_id, 1u, int(t), s);
    return;
  }
  const uint dst = uint(s) * p.width + c;
  if (DTYPE == DTYPE_F16) {
    p.cache.v[dst] = uint16_t(packHalf2x16(vec2(p.x.v[e], 0.0)));
  } else {
    FloatRef(p.cache).v[dst] = p.x.v[e];
  }
}
