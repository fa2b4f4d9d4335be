// Decode's read-ahead by hand: a row-group kernel (rows8::dot) asks for the weight bytes
// `distance` past the ones it is about to dot, each cache line once, into the L2 cache;
// the f16 and bf16 kernels the same, line by line, in each row they stream.
// See decode_rows.h for when it is on. An ISA-specific header (isa_target.h): include it
// only from kernel-variant sources.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu/decode_rows.h"

namespace tessera::cpu::TESSERA_CPU_ISA_NS {

// The distance (decode_rows.h), read once when the plugin loads.
inline const int64_t read_ahead_distance = decode_read_ahead();

// Part `part` of `parts` of one block of a group copy: the lines whose first byte lies in
// that part of [block + distance, block + 1 + distance). Over the parts of consecutive
// blocks each line of a thread's stream is asked for once, a few at a time: a kernel
// with blocks of kilobytes asks part by part, as it reaches them, since a burst of forty
// prefetches at once helped Q4_K and Q6_K decode none. No-op for distance 0; a line past
// the weights is harmless (a prefetch never faults). Always inline, reading a variable set
// at load: GCC 12 judged an outlined function of prefetches alone free of side effects and
// dropped its calls from the AVX-512 kernels, and the distance as a static of the function
// put its guard and a possible call into every kernel's loop, around which GCC kept the
// AVX2 kernels' accumulators on the stack (q4_0: a store and a reload per block). On Zen 3,
// BM_DecodeCached, 1 thread, medians of three rounds in alternation, G weights/s: q4_0
// 28.1 -> 34.4, q8_0 21.3 -> 26.6, q5_k 20.4 -> 26.1, q4_k 32.6 -> 34.2, q6_k about even.
template <class Block>
[[gnu::always_inline]] inline void read_ahead(const Block* block, int part, int parts) {
  const int64_t distance = read_ahead_distance;
  if (distance == 0) return;
  const auto at = reinterpret_cast<uintptr_t>(block) + static_cast<uintptr_t>(distance);
  const uintptr_t begin = at + sizeof(Block) * static_cast<size_t>(part) / static_cast<size_t>(parts);
  const uintptr_t end = at + sizeof(Block) * static_cast<size_t>(part + 1) / static_cast<size_t>(parts);
  for (uintptr_t line = (begin + 63) & ~uintptr_t{63}; line < end; line += 64) {
    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 2);  // locality 2: L2 (x86 prefetcht1)
  }
}

// The line holding `at`, for a kernel that steps over its rows a line at a time and
// adds the distance (decode_read_ahead(), read once per call) itself.
[[gnu::always_inline]] inline void read_ahead_line(const void* at) {
  __builtin_prefetch(at, 0, 2);
}

// The whole block.
template <class Block>
[[gnu::always_inline]] inline void read_ahead(const Block* block) {
  read_ahead(block, 0, 1);
}

}  // namespace tessera::cpu::TESSERA_CPU_ISA_NS
