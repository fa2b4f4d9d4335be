// The scale searches the quantisers share: for a group of values, the scale (and, for
// the affine formats, the offset) whose rounded levels reconstruct the values with the
// least squared error. Internal to the kit.
#pragma once

#include <cmath>
#include <cstdint>

namespace tessera::kit::fit {

// v rounded to the nearest integer (ties to even); NaN gives 0 and huge values saturate,
// so garbage input cannot overflow the conversion.
inline int round_level(float v) {
  if (!(v == v)) return 0;
  const float r = std::nearbyint(v);
  return r >= 1e9f ? 1000000000 : (r <= -1e9f ? -1000000000 : static_cast<int>(r));
}
inline int clamp_level(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// x ~ scale * L - min with L in [0, nmax], min >= 0.
struct Affine {
  float scale = 0.0f;
  float min = 0.0f;
};

// x ~ scale * L with L in [lo, hi] (lo < 0 < hi).
struct Symmetric {
  float scale = 0.0f;
};

// Least-squares affine fit of x[0:n] over a range of candidate level spacings around
// (max - min) / nmax; the offset is kept <= 0 (stored as a positive min).
Affine fit_affine(const float* x, int n, int nmax);

// Least-squares symmetric fit of x[0:n] to levels lo..hi, trying spacings that put the
// largest-magnitude value near either end of the range.
Symmetric fit_symmetric(const float* x, int n, int lo, int hi);

// The same for a fixed, sorted table of 16 levels (IQ4_NL's), returning the scale;
// levels[] are the table's values.
float fit_table(const float* x, int n, const int8_t* levels);

// The index of the table level nearest v (levels sorted ascending).
int nearest_table_level(float v, const int8_t* levels);

}  // namespace tessera::kit::fit
