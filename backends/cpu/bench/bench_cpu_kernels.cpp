// Speed of the CPU kernels. Decode matrix-vector products are memory-bound, so they
// are reported in GB/s of weights read, next to a streaming read of a 1 GiB buffer
// (this machine's practical memory bandwidth) on the same thread pool.
#include <benchmark/benchmark.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/huge_page_memory.h>
#include <tessera/kit/quantize.h>
#include <tessera/kit/tensor_info.h>

#include <cmath>
#include <memory>
#include <new>
#include <random>
#include <vector>

#include "backends/cpu/buffer.h"
#include "backends/cpu/device.h"
#include "backends/cpu/ops/attention.h"
#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/ops/simd.h"

namespace tessera::cpu {
namespace {

// A buffer and a tensor descriptor over it. On huge pages, as the weights of a model read
// into memory are (and its decode copies): with 4 KiB pages the decode kernels also wait on
// page walks, and a streaming read drops from 31-33 to 22-23 GB/s on one Zen 4 core.
struct BenchTensor {
  kit::HugePageMemory memory;
  std::unique_ptr<tsr_buffer_impl, void (*)(tsr_buffer)> buffer{nullptr, buffer_free};
  tsr_tensor desc{};
  uint64_t bytes = 0;
};

// A [rows, cols] tensor of `dtype` filled with random values in [-1, 1].
BenchTensor make_tensor(tsr_dtype dtype, int64_t rows, int64_t cols, uint32_t seed) {
  BenchTensor t;
  const int64_t row_bytes = kit::dtype_row_bytes(dtype, cols);
  t.bytes = static_cast<uint64_t>(rows * row_bytes);
  t.memory = kit::HugePageMemory(t.bytes);
  if (t.memory.data() == nullptr) throw std::bad_alloc();
  t.buffer.reset(buffer_wrap(t.memory.data(), t.bytes));
  t.desc = {t.buffer.get(), 0, dtype, 2, {rows, cols, 1, 1}, nullptr};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> row(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (float& v : row) v = dist(rng);
    kit::quantize_row(dtype, row.data(), t.buffer->data + r * row_bytes, cols);
  }
  return t;
}

// Streaming read of 1 GiB on huge pages, one contiguous share and one forward stream per
// thread of the pool, plain loads only: `tessera bench` also reads with each line asked
// for ahead (tools/tessera/memory_bandwidth.cpp) and takes the faster, which on some
// processors is well above this.
void BM_MemoryRead(benchmark::State& state) {
  CpuDevice device(static_cast<int>(state.range(0)));
  const int64_t n = int64_t{1} << 28;  // floats
  const kit::HugePageMemory memory(static_cast<size_t>(n) * 4);
  if (memory.data() == nullptr) throw std::bad_alloc();
  auto* data = reinterpret_cast<float*>(memory.data());
  for (int64_t i = 0; i < n; ++i) data[i] = 1.0f;
  const int64_t blocks = n / 4096;
  for (auto _ : state) {
    std::vector<float> sums(static_cast<size_t>(blocks));
    const int64_t share = (blocks + device.pool().size() - 1) / device.pool().size();
    device.pool().parallel_for(blocks, share, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        simd::F32x8 a0 = simd::zero(), a1 = simd::zero();
        for (int i = 0; i < 4096; i += 16) {
          a0 = simd::add(a0, simd::load(data + b * 4096 + i));
          a1 = simd::add(a1, simd::load(data + b * 4096 + i + 8));
        }
        sums[b] = simd::hsum(simd::add(a0, a1));
      }
    });
    benchmark::DoNotOptimize(sums.data());
  }
  state.SetBytesProcessed(state.iterations() * n * 4);
}
BENCHMARK(BM_MemoryRead)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Cost of one parallel_for with an empty body: the fixed price of a multithreaded kernel.
void BM_PoolDispatch(benchmark::State& state) {
  CpuDevice device(static_cast<int>(state.range(0)));
  std::vector<int64_t> touched(64);
  for (auto _ : state) {
    device.pool().parallel_for(64, 1, [&](int64_t b, int64_t e) { touched[b] = e; });
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_PoolDispatch)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The weight matrices [M, K] of one TinyLlama-1.1B layer: wq, wk, wv, wo, w1, w3, w2.
const int64_t kLayerShapes[][2] = {{2048, 2048}, {256, 2048},  {256, 2048}, {2048, 2048},
                                   {5632, 2048}, {5632, 2048}, {2048, 5632}};

// Decode: one token (x [1, K]) through every matrix of the layer; args: dtype, threads.
void BM_DecodeLayer(benchmark::State& state) {
  const auto dtype = static_cast<tsr_dtype>(state.range(0));
  CpuDevice device(static_cast<int>(state.range(1)));
  std::vector<BenchTensor> weights, xs, outs;
  uint64_t weight_bytes = 0;
  uint32_t seed = 1;
  for (const auto& s : kLayerShapes) {
    weights.push_back(make_tensor(dtype, s[0], s[1], seed++));
    xs.push_back(make_tensor(TSR_DTYPE_F32, 1, s[1], seed++));
    outs.push_back(make_tensor(TSR_DTYPE_F32, 1, s[0], seed++));
    weight_bytes += weights.back().bytes;
  }
  for (auto _ : state) {
    for (size_t i = 0; i < weights.size(); ++i) {
      const tsr_tensor in[] = {xs[i].desc, weights[i].desc};
      const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, in, &outs[i].desc};
      matmul_fast(device, call);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * weight_bytes));
  state.SetLabel(std::string(kit::dtype_traits(dtype).name));
}

// Decode through the output head [32000, 2048]; args: dtype, threads.
void BM_DecodeHead(benchmark::State& state) {
  const auto dtype = static_cast<tsr_dtype>(state.range(0));
  CpuDevice device(static_cast<int>(state.range(1)));
  BenchTensor w = make_tensor(dtype, 32000, 2048, 1);
  BenchTensor x = make_tensor(TSR_DTYPE_F32, 1, 2048, 2);
  BenchTensor out = make_tensor(TSR_DTYPE_F32, 1, 32000, 3);
  const tsr_tensor in[] = {x.desc, w.desc};
  const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, in, &out.desc};
  for (auto _ : state) matmul_fast(device, call);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.bytes));
  state.SetLabel(std::string(kit::dtype_traits(dtype).name));
}

// Decode on weights that stay in L2 ([256, 2048], at most 1 MiB in f16): the kernel's
// compute rate, which decode needs above the memory bandwidth to be memory-bound; args:
// dtype, threads. Reported in weights per second, so formats compare directly.
void BM_DecodeCached(benchmark::State& state) {
  const auto dtype = static_cast<tsr_dtype>(state.range(0));
  CpuDevice device(static_cast<int>(state.range(1)));
  const int64_t m = 256, k = 2048;
  BenchTensor w = make_tensor(dtype, m, k, 1);
  BenchTensor x = make_tensor(TSR_DTYPE_F32, 1, k, 2);
  BenchTensor out = make_tensor(TSR_DTYPE_F32, 1, m, 3);
  const tsr_tensor in[] = {x.desc, w.desc};
  const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, in, &out.desc};
  for (auto _ : state) matmul_fast(device, call);
  state.counters["weights/s"] =
      benchmark::Counter(static_cast<double>(m * k), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(kit::dtype_traits(dtype).name));
}

void decode_args(benchmark::internal::Benchmark* b) {
  for (int dtype : {TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_BF16, TSR_DTYPE_Q8_0, TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1,
                    TSR_DTYPE_Q5_0, TSR_DTYPE_Q5_1, TSR_DTYPE_IQ4_NL, TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K,
                    TSR_DTYPE_IQ4_XS}) {
    for (int threads : {1, 2}) b->Args({dtype, threads});
  }
  b->ArgNames({"dtype", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_DecodeLayer)->Apply(decode_args);
BENCHMARK(BM_DecodeHead)->Apply(decode_args);
BENCHMARK(BM_DecodeCached)->Apply(decode_args)->Unit(benchmark::kMicrosecond);

// Prefill: x [n, 2048] times w [2048, 2048]; reports FLOP/s. Args: dtype, threads, n (rows
// of x: 64 stay in L2 as Q8_K, 512 as in pp512 do not).
void BM_Prefill(benchmark::State& state) {
  const auto dtype = static_cast<tsr_dtype>(state.range(0));
  CpuDevice device(static_cast<int>(state.range(1)));
  const int64_t n = state.range(2), m = 2048, k = 2048;
  BenchTensor w = make_tensor(dtype, m, k, 1);
  BenchTensor x = make_tensor(TSR_DTYPE_F32, n, k, 2);
  BenchTensor out = make_tensor(TSR_DTYPE_F32, n, m, 3);
  const tsr_tensor in[] = {x.desc, w.desc};
  const tsr_op_call call{TSR_OP_MATMUL, nullptr, 2, in, &out.desc};
  for (auto _ : state) matmul_fast(device, call);
  state.counters["FLOP/s"] = benchmark::Counter(static_cast<double>(2 * n * m * k),
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(kit::dtype_traits(dtype).name));
}
void prefill_args(benchmark::internal::Benchmark* b) {
  for (int dtype : {TSR_DTYPE_F32, TSR_DTYPE_F16, TSR_DTYPE_BF16, TSR_DTYPE_Q8_0, TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1,
                    TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_XS}) {
    for (int threads : {1, 2}) {
      for (int n : {64, 512}) b->Args({dtype, threads, n});
    }
  }
  b->ArgNames({"dtype", "threads", "n"})->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(BM_Prefill)->Apply(prefill_args);

// An attention problem: the last `tokens` positions of a `context`-token sequence query
// 32 heads on 4 KV heads of 64 dims, in an f16 paged cache of 16-token blocks.
struct AttentionProblem {
  static constexpr int kHeads = 32, kKvHeads = 4, kHeadDim = 64, kBlock = 16;
  int n_blocks;
  tsr_attention_params p;
  BenchTensor q, k, v, pos, seq, table, out;
  std::vector<tsr_tensor> in;
  tsr_op_call call{};

  AttentionProblem(int context, int tokens)
      : n_blocks((context + kBlock - 1) / kBlock),
        p{kHeads, kKvHeads, kHeadDim, kBlock, 1, n_blocks, 0.125f, 0, 0.0f, 0.0f},
        q(make_tensor(TSR_DTYPE_F32, tokens, kHeads * kHeadDim, 1)),
        k(make_tensor(TSR_DTYPE_F16, n_blocks * kBlock, kKvHeads * kHeadDim, 2)),
        v(make_tensor(TSR_DTYPE_F16, n_blocks * kBlock, kKvHeads * kHeadDim, 3)),
        pos(make_tensor(TSR_DTYPE_F32, 1, tokens, 4)), seq(make_tensor(TSR_DTYPE_F32, 1, tokens, 5)),
        table(make_tensor(TSR_DTYPE_F32, 1, n_blocks, 6)),
        out(make_tensor(TSR_DTYPE_F32, tokens, kHeads * kHeadDim, 7)) {
    for (BenchTensor* c : {&k, &v}) {
      c->desc.ndim = 3;
      c->desc.shape[0] = n_blocks;
      c->desc.shape[1] = kBlock;
      c->desc.shape[2] = kKvHeads * kHeadDim;
    }
    for (BenchTensor* t : {&pos, &seq}) {
      t->desc.dtype = TSR_DTYPE_I32;
      t->desc.ndim = 1;
      t->desc.shape[0] = tokens;
    }
    table.desc.dtype = TSR_DTYPE_I32;
    for (int t = 0; t < tokens; ++t) {
      reinterpret_cast<int32_t*>(pos.buffer->data)[t] = context - tokens + t;
      reinterpret_cast<int32_t*>(seq.buffer->data)[t] = 0;
    }
    for (int b = 0; b < n_blocks; ++b) reinterpret_cast<int32_t*>(table.buffer->data)[b] = b;
    in = {q.desc, k.desc, v.desc, pos.desc, seq.desc, table.desc};
    call = {TSR_OP_ATTENTION, &p, 6, in.data(), &out.desc};
  }
};

// Decode attention: one token, `context` keys. Args: context, threads.
void BM_DecodeAttention(benchmark::State& state) {
  const int context = static_cast<int>(state.range(0));
  CpuDevice device(static_cast<int>(state.range(1)));
  AttentionProblem a(context, 1);
  for (auto _ : state) attention_fast(device, a.call);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (a.k.bytes + a.v.bytes)));
}
BENCHMARK(BM_DecodeAttention)
    ->Args({512, 2})
    ->Args({2048, 1})
    ->Args({2048, 2})
    ->ArgNames({"context", "threads"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// Prefill attention: a whole causal prompt of `tokens` tokens; reports FLOP/s of the two
// products (2 * 2 * head_dim per visible key and query head). Args: tokens, threads.
void BM_PrefillAttention(benchmark::State& state) {
  const int tokens = static_cast<int>(state.range(0));
  CpuDevice device(static_cast<int>(state.range(1)));
  AttentionProblem a(tokens, tokens);
  for (auto _ : state) attention_fast(device, a.call);
  const double visible = 0.5 * tokens * (tokens + 1.0);
  state.counters["FLOP/s"] = benchmark::Counter(4.0 * AttentionProblem::kHeadDim * AttentionProblem::kHeads * visible,
                                                benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PrefillAttention)
    ->Args({512, 1})
    ->Args({512, 2})
    ->ArgNames({"tokens", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace tessera::cpu

BENCHMARK_MAIN();
