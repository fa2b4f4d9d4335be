// A deliberate violation for isa_objects_test.sh's own test: an inline function outside
// every variant namespace, compiled with AVX2 as a whole file is, and kept as a weak
// symbol that the linker could share with a portable copy.
#include <immintrin.h>

__attribute__((noinline)) inline float planted_shared_sum(const float* p) {
  float out[8];
  _mm256_storeu_ps(out, _mm256_add_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)));
  return out[0] + out[7];
}

namespace tessera::cpu::isa_avx2 {
float planted_use(const float* p) { return planted_shared_sum(p); }
}  // namespace tessera::cpu::isa_avx2
