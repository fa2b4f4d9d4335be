// MATMUL for the block formats (q8_0, q4_0 ... q6_k, iq4_nl, iq4_xs), optimised: every
// row of x is quantised once to int8 blocks (quant_activations.h) and each weight block
// is dotted with it in integers, scaled once per block (32-element formats) or per
// super-block (K formats). Weight rows are split across the pool's threads.
//  - Decode (up to four rows of x): eight weight rows at a time, each thread streaming one
//    contiguous share of the rows; by default from a copy regrouped eight rows at a time
//    (every format but Q2_K and Q3_K: the *_rows8.h layouts, quant_rows8.h and
//    quant_rows8_32.h), made at the weight's first decode and kept with its buffer
//    (repacked_weights.h), else straight from the weight bytes.
//  - Prefill (more rows of x), in the avx512 copy (AVX-512 VNNI): sixteen weight rows are
//    unpacked into a panel once and met by every row of x (quant_panel.h), sixteen rows
//    of x per tile product where the processor has AMX int8 (quant_amx.h); the results
//    equal the decode kernel's bit for bit. TESSERA_CPU_MATMUL=rows|vnni keeps prefill on
//    the decode kernel or off the AMX tiles, to compare and test each path.
// Compiled once per instruction set (isa_target.h); "portable" falls back to the
// reference dequantisation and f32 dots.
#pragma once

#include "backends/cpu/ops/matmul.h"
#include "backends/cpu/thread_pool.h"

namespace tessera::cpu {

// The prefill path of the variant in use: "amx", "vnni", "rows" or "portable".
const char* quant_prefill_path();

}  // namespace tessera::cpu

#if defined(TESSERA_CPU_ISA_NS)
namespace tessera::cpu::TESSERA_CPU_ISA_NS {

// This variant's prefill path.
const char* quant_prefill_path();

// out = x w^T for a block-format w and any number of rows of x.
void matmul_quant(ThreadPool& pool, const MatmulArgs& a);

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
#endif
