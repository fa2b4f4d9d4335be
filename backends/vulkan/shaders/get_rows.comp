// GET_ROWS: out[i, c] = table[idx[i], c], table [R, C] in DTYPE, idx i32 [N], out f32 [N, C].
// One invocation per output element; an index outside the table is reported and its
// row written as zeros.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint DTYPE = 0u;

layout(push_constant) uniform Push {
  HalfRef table;
  IntRef idx;
  FloatRef out_;
  StatusRef status;
  uint n;       // output rows
  uint cols;
  uint n_table_rows;
  uint call_id;
} p;

void main() {
  const uint e = flat_group_id() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (e >= p.n * p.cols) return;
  const uint i = e / p.cols, c = e % p.cols;
  const int row = p.idx.v[i];
  if (row < 0 || uint(row) >= p.n_table_rows) {
    if (c == 0u) report_error(p.status, p.call_id, 1u, int(i), row);
    p.out_.v[e] = 0.0;
    return;
  }
  p.out_.v[e] = matrix_elem(DTYPE, p.table, uint(row), p.cols, c);
}
