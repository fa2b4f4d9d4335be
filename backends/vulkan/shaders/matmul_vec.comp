// MATMUL for few rows of x (decode): out[n, m] = sum_k x[n, k] * w[m, k], with
// x [N, K] f32, w [M, K] in DTYPE, out [N, M] f32. A workgroup takes WROWS weight rows
// and up to ROWS rows of x; each weight row is read once per ROWS rows of x, its K split
// across the invocations that own it, with one partial sum per x row.
//   plain:     WROWS = 1, the whole workgroup splits K; a shared-memory tree reduces.
//   subgroups: each subgroup owns the workgroup's rows gl_SubgroupID,
//              gl_SubgroupID + gl_NumSubgroups, ... and reduces with subgroupAdd: no
//              shared memory, no barriers, and any subgroup size works.
//   block formats (q4_0 ... iq4_xs, dequant.glsl): a lane takes runs of 16 weights that
//              share their sub-block's scale (and min), decoded once per run.
//   int8 dot:  subgroups, with w q8_0 and x quantised per 32-block (quantize_q8.comp,
//              p.x is then its [N * K / 32, 9] words): a lane takes whole blocks and
//              sums 8 packed int8 dot products, times d_w * d_x.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint WG = 128u;  // a power of two
layout(constant_id = 1) const uint DTYPE = 0u;
layout(constant_id = 2) const uint ROWS = 8u;   // rows of x per workgroup
layout(constant_id = 3) const uint WROWS = 1u;  // weight rows per workgroup; 1 when plain

layout(push_constant) uniform Push {
  HalfRef w;
  FloatRef x;
  FloatRef out_;
  uint n;
  uint k;
  uint m;
} p;

float acc[ROWS];  // this invocation's partial sum for each row of x

#if TESSERA_SUBGROUPS
uint lane() { return gl_SubgroupInvocationID; }  // position within the row's invocations
uint lanes() { return gl_SubgroupSize; }         // invocations per weight row
uint first_slot() { return gl_SubgroupID; }      // the first of the workgroup's rows it owns
uint slot_step() { return gl_NumSubgroups; }

// out[n0 + r, row] = the subgroup's sum of acc[r], for r < rows.
void store_row_sums(uint row, uint n0, uint rows) {
  for (uint r = 0u; r < ROWS; ++r) {
    if (r < rows) acc[r] = subgroupAdd(acc[r]);  // rows is uniform: no divergence
  }
  if (subgroupElect()) {
    for (uint r = 0u; r < rows; ++r) p.out_.v[(n0 + r) * p.m + row] = acc[r];
  }
}
#else
uint lane() { return gl_LocalInvocationID.x; }
uint lanes() { return WG; }
uint first_slot() { return 0u; }
uint slot_step() { return 1u; }

shared float partial[ROWS * WG];  // [ROWS, WG]

// out[n0 + r, row] = the workgroup's sum of acc[r], for r < rows: a log2(WG)
// shared-memory tree over all ROWS sums at once.
void store_row_sums(uint row, uint n0, uint rows) {
  const uint t = gl_LocalInvocationID.x;
  for (uint r = 0u; r < ROWS; ++r) partial[r * WG + t] = acc[r];
  barrier();
  for (uint s = WG / 2u; s > 0u; s >>= 1u) {
    if (t < s) {
      for (uint r = 0u; r < ROWS; ++r) partial[r * WG + t] += partial[r * WG + t + s];
    }
    barrier();
  }
  if (t < rows) p.out_.v[(n0 + t) * p.m + row] = partial[t * WG];
  if (WROWS > 1u) barrier();  // partial is reused for the workgroup's next row
}
#endif

#if TESSERA_INT8_DOT
// acc[r] += this lane's blocks of w[row] . x[n0 + r], for r < rows. A q8_0 block is
// only 2-byte aligned: its 16 halves of int8 pairs are joined into 8 words.
void accumulate_row(uint row, uint n0, uint rows) {
  IntRef xq = IntRef(p.x);
  const uint blocks = p.k / Q8_BLOCK_ELEMS;
  for (uint b = lane(); b < blocks; b += lanes()) {
    const uint wfirst = (row * blocks + b) * Q8_BLOCK_HALVES;
    const float dw = half_at(p.w, wfirst);
    int wq[8];
    for (uint i = 0u; i < 8u; ++i) {
      wq[i] = int(uint(p.w.v[wfirst + 1u + 2u * i]) | (uint(p.w.v[wfirst + 2u + 2u * i]) << 16));
    }
    for (uint r = 0u; r < ROWS; ++r) {
      if (r >= rows) break;
      const uint xfirst = ((n0 + r) * blocks + b) * Q8_PACKED_BLOCK_WORDS;
      int dot = 0;
      for (uint i = 0u; i < 8u; ++i) dot += sdot_packed(wq[i], xq.v[xfirst + 1u + i], 0);
      acc[r] += dw * intBitsToFloat(xq.v[xfirst]) * float(dot);
    }
  }
}
#else
// acc[r] += this lane's elements of w[row] . x[n0 + r], for r < rows. q8_0 rows go a
// block per lane: the scale is read once per 32 values, and each half holds two.
void accumulate_row(uint row, uint n0, uint rows) {
  if (DTYPE == DTYPE_Q8_0) {
    const uint blocks = p.k / Q8_BLOCK_ELEMS;
    for (uint b = lane(); b < blocks; b += lanes()) {
      const uint wfirst = (row * blocks + b) * Q8_BLOCK_HALVES;
      const float dw = half_at(p.w, wfirst);
      float sums[ROWS];
      for (uint r = 0u; r < ROWS; ++r) sums[r] = 0.0;
      for (uint i = 0u; i < Q8_BLOCK_ELEMS / 2u; ++i) {
        const int pair = int(uint(p.w.v[wfirst + 1u + i]));
        const float w0 = float(bitfieldExtract(pair, 0, 8)), w1 = float(bitfieldExtract(pair, 8, 8));
        const uint k = b * Q8_BLOCK_ELEMS + 2u * i;
        for (uint r = 0u; r < ROWS; ++r) {
          if (r < rows) sums[r] += w0 * p.x.v[(n0 + r) * p.k + k] + w1 * p.x.v[(n0 + r) * p.k + k + 1u];
        }
      }
      for (uint r = 0u; r < ROWS; ++r) acc[r] += dw * sums[r];
    }
    return;
  }
  if (is_block_quant(DTYPE)) {
    // The other block formats go 16 elements per lane, a run that shares one sub-block's
    // coefficients in every format: they are decoded once per run, and the run's quant
    // fields are read from its block only (quant_block_elems is a multiple of 16).
    const uint be = quant_block_elems(DTYPE);
    const uint runs_per_block = be / 16u;
    const uint row_first = row * (p.k / be) * quant_block_halves(DTYPE);
    for (uint run = lane(); run < p.k / 16u; run += lanes()) {
      const uint first = row_first + (run / runs_per_block) * quant_block_halves(DTYPE);
      const uint e0 = (run % runs_per_block) * 16u;
      const vec2 c = quant_coeffs(DTYPE, p.w, first, e0);
      const uint k0 = run * 16u;
      for (uint i = 0u; i < 16u; ++i) {
        const float wv = quant_value(c, quant_q(DTYPE, p.w, first, e0 + i));
        for (uint r = 0u; r < ROWS; ++r) {
          if (r < rows) acc[r] += wv * p.x.v[(n0 + r) * p.k + k0 + i];
        }
      }
    }
    return;
  }
  for (uint k = lane(); k < p.k; k += lanes()) {
    const float wv = matrix_elem(DTYPE, p.w, row, p.k, k);
    for (uint r = 0u; r < ROWS; ++r) {
      if (r < rows) acc[r] += wv * p.x.v[(n0 + r) * p.k + k];
    }
  }
}
#endif

void main() {
  const uint group = flat_group_id();
  const uint row_blocks = (p.m + WROWS - 1u) / WROWS;
  const uint row0 = (group % row_blocks) * WROWS;  // first weight row = output column
  const uint n0 = (group / row_blocks) * ROWS;     // first x row
  if (n0 >= p.n) return;                           // uniform over the workgroup
  const uint rows = min(ROWS, p.n - n0);

  // Uniform over the invocations that own a row (the workgroup, or a subgroup).
  for (uint slot = first_slot(); slot < WROWS && row0 + slot < p.m; slot += slot_step()) {
    const uint row = row0 + slot;
    for (uint r = 0u; r < ROWS; ++r) acc[r] = 0.0;
    accumulate_row(row, n0, rows);
    store_row_sums(row, n0, rows);
  }
}
