// MOE_ROUTE: logits [T, E] f32 -> route [T, 2k] f32 (k expert indices, best first, ties
// to the lower index; then their weights). One invocation per token: pick j is the best
// expert after pick j - 1 in the order (logit descending, index ascending), so no list
// of chosen experts is kept. GATING 0: softmax over the row; 1: sigmoid of each logit.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;

layout(push_constant) uniform Push {
  FloatRef logits;
  FloatRef out_;
  uint tokens;
  uint experts;
  uint k;
  uint gating;
  uint normalize;
  float scale;
} p;

// Whether expert a comes before expert b: a higher logit, or an equal one and a lower index.
bool before(uint row, uint a, uint b) {
  const float la = p.logits.v[row + a], lb = p.logits.v[row + b];
  return la > lb || (la == lb && a < b);
}

void main() {
  const uint t = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (t >= p.tokens) return;
  const uint row = t * p.experts;
  float top = p.logits.v[row];
  for (uint e = 1u; e < p.experts; ++e) top = max(top, p.logits.v[row + e]);
  float total = 0.0;
  for (uint e = 0u; e < p.experts; ++e) total += exp(p.logits.v[row + e] - top);

  const uint first = t * 2u * p.k;
  float chosen = 0.0;
  uint previous = p.experts;  // none yet
  for (uint j = 0u; j < p.k; ++j) {
    uint best = p.experts;
    for (uint e = 0u; e < p.experts; ++e) {
      if (previous < p.experts && !before(row, previous, e)) continue;  // already taken
      if (best == p.experts || before(row, e, best)) best = e;
    }
    const float l = p.logits.v[row + best];
    const float prob = p.gating == 0u ? exp(l - top) / total : 1.0 / (1.0 + exp(-l));
    p.out_.v[first + j] = float(best);
    p.out_.v[first + p.k + j] = prob;
    chosen += prob;
    previous = best;
  }
  const float factor = (p.normalize != 0u && chosen > 0.0 ? 1.0 / chosen : 1.0) * p.scale;
  for (uint j = 0u; j < p.k; ++j) p.out_.v[first + p.k + j] *= factor;
}
