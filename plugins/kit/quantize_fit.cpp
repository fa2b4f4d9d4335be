// The scale searches of the quantisers; see quantize_fit.h.
#include "quantize_fit.h"

#include <algorithm>

namespace tessera::kit::fit {
namespace {

constexpr int kSteps = 24;        // candidate spacings tried per group
constexpr float kSpread = 0.08f;  // relative step between candidates (in levels)

float squared_error_affine(const float* x, int n, float scale, float offset, int nmax) {
  float err = 0.0f;
  for (int i = 0; i < n; ++i) {
    const int l = scale > 0.0f ? clamp_level(round_level((x[i] - offset) / scale), 0, nmax) : 0;
    const float diff = scale * static_cast<float>(l) + offset - x[i];
    err += diff * diff;
  }
  return err;
}

}  // namespace

Affine fit_affine(const float* x, int n, int nmax) {
  float lo = x[0], hi = x[0];
  for (int i = 1; i < n; ++i) {
    lo = std::min(lo, x[i]);
    hi = std::max(hi, x[i]);
  }
  lo = std::min(lo, 0.0f);
  if (hi <= lo) return {0.0f, -lo};
  Affine best{(hi - lo) / static_cast<float>(nmax), -lo};
  float best_err = squared_error_affine(x, n, best.scale, lo, nmax);
  for (int step = 0; step <= kSteps; ++step) {
    // Spacings from (nmax - 1) to (nmax + 1) levels across the range.
    const float levels = static_cast<float>(nmax) - 1.0f + 2.0f * static_cast<float>(step) / kSteps;
    const float inv = levels / (hi - lo);
    double sl = 0, sll = 0, sx = 0, slx = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_level(round_level(inv * (x[i] - lo)), 0, nmax);
      sl += l;
      sll += static_cast<double>(l) * l;
      sx += x[i];
      slx += static_cast<double>(l) * x[i];
    }
    const double det = n * sll - sl * sl;
    if (det <= 0) continue;
    double scale = (n * slx - sl * sx) / det;
    double offset = (sx - scale * sl) / n;
    if (offset > 0) {  // the offset must not be positive: refit through zero
      offset = 0;
      scale = sll > 0 ? slx / sll : 0;
    }
    if (scale <= 0) continue;
    const float err = squared_error_affine(x, n, static_cast<float>(scale), static_cast<float>(offset), nmax);
    if (err < best_err) {
      best_err = err;
      best = {static_cast<float>(scale), static_cast<float>(-offset)};
    }
  }
  return best;
}

Symmetric fit_symmetric(const float* x, int n, int lo, int hi) {
  float amax = 0.0f, max = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  if (amax == 0.0f) return {0.0f};
  Symmetric best{};
  float best_err = 0.0f;
  for (const int end : {lo, hi}) {  // map the extreme value to either end of the levels
    for (int step = -kSteps / 2; step <= kSteps / 2; ++step) {
      const float levels = static_cast<float>(end) + (end < 0 ? -1.0f : 1.0f) * kSpread * static_cast<float>(step);
      const float inv = levels / max;
      double slx = 0, sll = 0;
      for (int i = 0; i < n; ++i) {
        const int l = clamp_level(round_level(inv * x[i]), lo, hi);
        slx += static_cast<double>(l) * x[i];
        sll += static_cast<double>(l) * l;
      }
      if (sll <= 0) continue;
      const auto scale = static_cast<float>(slx / sll);
      float err = 0.0f;
      for (int i = 0; i < n; ++i) {
        const int l = scale != 0.0f ? clamp_level(round_level(x[i] / scale), lo, hi) : 0;
        const float diff = scale * static_cast<float>(l) - x[i];
        err += diff * diff;
      }
      if (best.scale == 0.0f || err < best_err) {
        best_err = err;
        best.scale = scale;
      }
    }
  }
  return best;
}

int nearest_table_level(float v, const int8_t* levels) {
  if (v <= levels[0]) return 0;
  if (v >= levels[15]) return 15;
  int i = 0;
  while (i < 15 && levels[i + 1] < v) ++i;
  return (v - levels[i] <= levels[i + 1] - v) ? i : i + 1;
}

float fit_table(const float* x, int n, const int8_t* levels) {
  float amax = 0.0f, max = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) {
      amax = std::fabs(x[i]);
      max = x[i];
    }
  }
  if (amax == 0.0f) return 0.0f;
  float best_scale = 0.0f, best_err = 0.0f;
  for (const float end : {static_cast<float>(levels[0]), static_cast<float>(levels[15])}) {
    for (int step = -kSteps / 2; step <= kSteps / 2; ++step) {
      const float s0 = max / (end + (end < 0 ? -1.0f : 1.0f) * static_cast<float>(step));
      if (!(s0 != 0.0f) || !std::isfinite(s0)) continue;
      double svx = 0, svv = 0;
      for (int i = 0; i < n; ++i) {
        const float v = levels[nearest_table_level(x[i] / s0, levels)];
        svx += static_cast<double>(v) * x[i];
        svv += static_cast<double>(v) * v;
      }
      if (svv <= 0) continue;
      const auto scale = static_cast<float>(svx / svv);
      if (scale == 0.0f) continue;
      float err = 0.0f;
      for (int i = 0; i < n; ++i) {
        const float v = levels[nearest_table_level(x[i] / scale, levels)];
        const float diff = scale * v - x[i];
        err += diff * diff;
      }
      if (best_scale == 0.0f || err < best_err) {
        best_err = err;
        best_scale = scale;
      }
    }
  }
  return best_scale;
}

}  // namespace tessera::kit::fit
