// The arithmetic peaks that the prefill kernels are measured against, in the same run as
// BM_Prefill and in its unit (FLOP/s, an int8 multiply-add counting as two): ten
// independent chains of one instruction per thread of the pool, so that neither latency
// nor memory sets the pace. Built with -march=native like the rest of this binary, so a
// peak whose instructions the build machine lacks is reported as skipped, with the reason.
#include <benchmark/benchmark.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "backends/cpu/device.h"

namespace tessera::cpu {
namespace {

// Enough chains to cover a latency of 4 on 2 ports. With 12, an AVX2 build (16 registers)
// stored some of them to the stack every step: on Zen 4, vpmaddubsw ran at 330-350 G/s
// with 12 and at 445-465 with 10.
constexpr int kChains = 10;
constexpr int64_t kSteps = 1 << 20;  // per thread and iteration

// Runs `steps` steps of kChains chains, acc[c] = step(acc[c]) from init(c), and returns
// the first lane of their sum (as a float's bytes), so that no chain is optimised away.
// The accumulators stay in registers because the chain loop is unrolled (`GCC unroll`):
// left as a loop, GCC 12 at -O2 kept them in an array on the stack, and the stores and
// loads through it halved the rate.
template <class Init, class Step, class Add>
float chains(int64_t steps, Init init, Step step, Add add) {
  using V = decltype(init(0));
  V acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = init(c);
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll kChains
    for (int c = 0; c < kChains; ++c) acc[c] = step(acc[c]);
  }
  V sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = add(sum, acc[c]);
  float lane;
  std::memcpy(&lane, &sum, sizeof lane);
  return lane;
}

#if defined(__AVX2__) && defined(__FMA__)
float fma_ymm(int64_t steps) {
  const __m256 a = _mm256_set1_ps(1.0001f), b = _mm256_set1_ps(-0.0001f);
  return chains(
      steps, [](int c) { return _mm256_set1_ps(static_cast<float>(c)); },
      [&](__m256 v) { return _mm256_fmadd_ps(v, a, b); }, [](__m256 x, __m256 y) { return _mm256_add_ps(x, y); });
}

// pmaddubsw: 32 u8 x s8 products summed in pairs to int16, the AVX2 path of the block formats.
float maddubs_ymm(int64_t steps) {
  const __m256i b = _mm256_set1_epi8(1);
  return chains(
      steps, [](int c) { return _mm256_set1_epi8(static_cast<char>(c)); },
      [&](__m256i v) { return _mm256_maddubs_epi16(v, b); },
      [](__m256i x, __m256i y) { return _mm256_add_epi16(x, y); });
}
#else
constexpr float (*fma_ymm)(int64_t) = nullptr;
constexpr float (*maddubs_ymm)(int64_t) = nullptr;
#endif

#if defined(__AVX512F__)
float fma_zmm(int64_t steps) {
  const __m512 a = _mm512_set1_ps(1.0001f), b = _mm512_set1_ps(-0.0001f);
  return chains(
      steps, [](int c) { return _mm512_set1_ps(static_cast<float>(c)); },
      [&](__m512 v) { return _mm512_fmadd_ps(v, a, b); }, [](__m512 x, __m512 y) { return _mm512_add_ps(x, y); });
}
#else
constexpr float (*fma_zmm)(int64_t) = nullptr;
#endif

#if defined(__AVX512VNNI__)
float dpbusd_zmm(int64_t steps) {
  const __m512i u = _mm512_set1_epi8(3), s8 = _mm512_set1_epi8(-2);
  return chains(
      steps, [](int c) { return _mm512_set1_epi32(c); }, [&](__m512i v) { return _mm512_dpbusd_epi32(v, u, s8); },
      [](__m512i x, __m512i y) { return _mm512_add_epi32(x, y); });
}
#else
constexpr float (*dpbusd_zmm)(int64_t) = nullptr;
#endif

#if defined(__AVX512BF16__)
float dpbf16_zmm(int64_t steps) {
  const __m512bh one = reinterpret_cast<__m512bh>(_mm512_set1_epi16(0x3f80));  // bf16 1.0
  return chains(
      steps, [](int c) { return _mm512_set1_ps(static_cast<float>(c)); },
      [&](__m512 v) { return _mm512_dpbf16_ps(v, one, one); }, [](__m512 x, __m512 y) { return _mm512_add_ps(x, y); });
}
#else
constexpr float (*dpbf16_zmm)(int64_t) = nullptr;
#endif

struct Peak {
  const char* label;       // the instruction and its operands
  const char* needs;       // the instruction set, for the skip message
  float (*run)(int64_t);   // nullptr where the build machine lacks its instructions
  double flops_per_instr;  // per instruction of one chain
};

const Peak kPeaks[] = {
    {"vfmadd f32 ymm", "AVX2 and FMA", fma_ymm, 2 * 8},
    {"vpmaddubsw int8 ymm", "AVX2", maddubs_ymm, 2 * 32},
    {"vfmadd f32 zmm", "AVX-512F", fma_zmm, 2 * 16},
    {"vpdpbusd int8 zmm", "AVX512-VNNI", dpbusd_zmm, 2 * 64},
    {"vdpbf16ps bf16 zmm", "AVX512-BF16", dpbf16_zmm, 2 * 32},
};

// Args: the peak (an index into kPeaks), threads.
void BM_ComputePeak(benchmark::State& state) {
  const Peak& peak = kPeaks[state.range(0)];
  state.SetLabel(peak.label);
  if (peak.run == nullptr) {
    state.SkipWithError((std::string("built without ") + peak.needs + " (-march=native: the build machine lacks it)").c_str());
    return;
  }
  CpuDevice device(static_cast<int>(state.range(1)));
  const int64_t threads = device.pool().size();
  std::vector<float> sinks(static_cast<size_t>(threads));
  for (auto _ : state) {
    // One chunk per thread, in its own share: each thread runs one chain set.
    device.pool().parallel_for_shares(threads, 1, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) sinks[static_cast<size_t>(t)] = peak.run(kSteps);
    });
    benchmark::DoNotOptimize(sinks.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      static_cast<double>(threads) * kSteps * kChains * peak.flops_per_instr, benchmark::Counter::kIsIterationInvariantRate);
}
void peak_args(benchmark::internal::Benchmark* b) {
  for (int p = 0; p < static_cast<int>(std::size(kPeaks)); ++p) {
    for (int threads : {1, 2}) b->Args({p, threads});
  }
  b->ArgNames({"peak", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_ComputePeak)->Apply(peak_args);

}  // namespace
}  // namespace tessera::cpu
