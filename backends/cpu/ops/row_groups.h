// Which row-group copy each block format decodes from (Rows8<F>): its layout, how it is
// made, the x blocks its kernel (rows8::dot) takes, the int32 per block it needs of x
// beyond them (XSumsOf) and its rows per group. An ISA-specific header
// (isa_target.h): include it only from matmul_quant.cpp, after the kernels' headers.
#pragma once

#include <cstdint>

#include "backends/cpu/ops/iq4xs_rows8.h"
#include "backends/cpu/ops/q40_rows8.h"
#include "backends/cpu/ops/q4k_rows8.h"
#include "backends/cpu/ops/q50_rows8.h"
#include "backends/cpu/ops/q6k_rows8.h"
#include "backends/cpu/ops/q80_rows8.h"
#include "backends/cpu/ops/quant_activations.h"
#include "backends/cpu/ops/quant_groups.h"
#include "backends/cpu/ops/quant_rows8.h"  // the XSumsOf forms

#if TESSERA_CPU_AVX2
namespace tessera::cpu::TESSERA_CPU_ISA_NS {

// Formats without a copy decode from the file's layout.
template <class F>
struct Rows8 {
  static constexpr bool kHas = false;
};
// The int32 per super-block of x a kernel takes beyond x's blocks, formed once per step:
// none; the chunk-pair sums of Q4_K, Q5_K and IQ4_XS; Q6_K's sixteen biases.
template <int64_t PerBlock, auto Form = nullptr>
struct XSumsOf {
  static constexpr int64_t kPerBlock = PerBlock;
  static constexpr auto form = Form;
};
using NoXSums = XSumsOf<0>;
using ChunkPairSums = XSumsOf<4, rows8::chunk_pair_sums>;
using SixteenBiases = XSumsOf<16, rows8::sixteen_biases>;

template <class G, class X, auto Repack, class Sums = NoXSums, int64_t Rows = 8>
struct Rows8Of {
  static constexpr bool kHas = true;
  using Group = G;
  using XBlock = X;
  using XSums = Sums;
  static constexpr auto repack = Repack;
  static constexpr int64_t kRows = Rows;  // rows per group
};
#if TESSERA_CPU_AVX512
template <>
struct Rows8<quant::Q4_K> : Rows8Of<Q4KRows16, Q8KBlock, repack_q4k_rows16, ChunkPairSums, 16> {};
#else
template <>
struct Rows8<quant::Q4_K> : Rows8Of<Q4KRows8, Q8KBlock, repack_q4k_rows8, ChunkPairSums> {};
#endif
#if TESSERA_CPU_AVX512
template <>
struct Rows8<quant::Q5_K> : Rows8Of<Q5KRows16, Q8KBlock, repack_q5k_rows16, ChunkPairSums, 16> {};
#else
template <>
struct Rows8<quant::Q5_K> : Rows8Of<Q5KRows8, Q8KBlock, repack_q5k_rows8, ChunkPairSums> {};
#endif
#if TESSERA_CPU_AVX512
template <>
struct Rows8<quant::Q6_K> : Rows8Of<Q6KRows16, Q8KBlock, repack_q6k_rows16, SixteenBiases, 16> {};
#else
template <>
struct Rows8<quant::Q6_K> : Rows8Of<Q6KRows8, Q8KBlock, repack_q6k_rows8, SixteenBiases> {};
#endif
#if TESSERA_CPU_AVX512
// Sixteen rows per group: one 64-byte load per word (quant_rows8_32.h). TinyLlama-shaped
// q4_0 decode, 2 threads: 34.2-34.8 -> 39.2-39.5 tok/s, 72% -> 79-80% of the bound.
template <>
struct Rows8<quant::Q4_0> : Rows8Of<Q40Rows16, Q8Block, repack_q40_rows16, NoXSums, 16> {};
template <>
struct Rows8<quant::Q4_1> : Rows8Of<Q41Rows16, Q8Block, repack_q41_rows16, NoXSums, 16> {};
template <>
struct Rows8<quant::IQ4_NL> : Rows8Of<IQ4NLRows16, Q8Block, repack_iq4nl_rows16, NoXSums, 16> {};
#else
template <>
struct Rows8<quant::Q4_0> : Rows8Of<Q40Rows8, Q8Block, repack_q40_rows8> {};
template <>
struct Rows8<quant::Q4_1> : Rows8Of<Q41Rows8, Q8Block, repack_q41_rows8> {};
template <>
struct Rows8<quant::IQ4_NL> : Rows8Of<IQ4NLRows8, Q8Block, repack_iq4nl_rows8> {};
#endif
// Q8_0 stays at eight rows: its decode waits on memory alone, and the sixteen-row kernel
// read TinyLlama-shaped q8_0 at 85-86% of the bound against 90-92% (2 threads, 22.9 against
// 24.0-24.2 tok/s).
template <>
struct Rows8<quant::Q8_0> : Rows8Of<Q80Rows8, Q8Block, repack_q80_rows8> {};
#if TESSERA_CPU_AVX512
template <>
struct Rows8<quant::Q5_0> : Rows8Of<Q50Rows16, Q8Block, repack_q50_rows16, NoXSums, 16> {};
template <>
struct Rows8<quant::Q5_1> : Rows8Of<Q51Rows16, Q8Block, repack_q51_rows16, NoXSums, 16> {};
#else
template <>
struct Rows8<quant::Q5_0> : Rows8Of<Q50Rows8, Q8Block, repack_q50_rows8> {};
template <>
struct Rows8<quant::Q5_1> : Rows8Of<Q51Rows8, Q8Block, repack_q51_rows8> {};
#endif
#if TESSERA_CPU_AVX512
template <>
struct Rows8<quant::IQ4_XS> : Rows8Of<IQ4XSRows16, Q8KBlock, repack_iq4xs_rows16, ChunkPairSums, 16> {};
#else
template <>
struct Rows8<quant::IQ4_XS> : Rows8Of<IQ4XSRows8, Q8KBlock, repack_iq4xs_rows8, ChunkPairSums> {};
#endif

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
