// Copies of weights in the layouts decode reads fastest (ops/q4k_rows8.h for Q4_K and
// Q5_K, ops/q6k_rows8.h, ops/iq4xs_rows8.h, ops/q40_rows8.h for Q4_0, Q4_1 and IQ4_NL,
// ops/q50_rows8.h for Q5_0 and Q5_1, ops/q80_rows8.h), kept with the buffer that holds
// the weights: made at a weight's first decode (or prefill, where prefill takes the rows
// path: AVX2), freed with the buffer, dropped when the buffer is written. The original
// bytes (a mapped or read-in file) are left as they are, and the VNNI and AMX prefill
// panels keep reading them, so a repacked weight costs its size again in memory. The copies are laid one after another in chunks of memory on 2 MiB
// pages (kit/huge_page_memory.h): decode streams them, and TinyLlama-shaped q4_k_m
// decode was faster than from copies on 4 KiB pages in each of 6 rounds in alternation
// (Zen 4, 2 threads; 38.6/40.4/39.3/32.4/45.9/39.3 -> 43.2/44.2/44.9/37.8/52.7/40.6
// tok/s, the file's layout 41.4/40.3/39.1/41.9/39.1/31.4 in the same rounds).
//
// On by default, where memory allows: measured on an AMD EPYC (Zen 4) with 2 threads, the
// Q4_K copy's kernel dots 59 G weights/s per thread against 33 from the GGUF layout, and
// with both copies laid out in their reading order TinyLlama-shaped decode (`tessera
// bench -p 16 -n 64 -r 2`, rounds in alternation) went, q4_k_m, from 50.1/45.7/50.2 to
// 56.1/72.0/47.9 tok/s (llama.cpp 43.0/48.2/42.2), q6_k from 40.6/36.3/33.5 to
// 56.5/40.3/43.9 (llama.cpp 36.0/33.5/37.8). The Q4_0 and Q8_0 copies: 44 -> 66 and 42
// -> 62 G weights/s per thread in L2 (bench_cpu_kernels BM_DecodeCached); decode, six
// rounds, q4_0 42.9/47.6/42.6/54.1/57.7/49.9 -> 52.4/52.2/50.9/67.5/55.8/68.6 tok/s
// (llama.cpp 44.5/46.4/42.3/49.3/49.3/47.9), q8_0 36.9/37.1/36.5/26.1/27.1/35.2 ->
// 45.9/46.2/46.7/29.0/30.2/45.7 (llama.cpp 29.8/29.5/28.8/25.4/25.6/25.4), and the real
// SmolLM2-135M Q4_1 190/188/187/187/186/213 -> 297/303/304/289/312/295 (llama.cpp
// 114/114/138/114/115/114): its matrices stay in the last-level cache, so the kernel's
// speed, not the memory's, is what decode waits on there. q5_k_m, four rounds:
// 38.0/38.6/37.0/41.8 -> 43.8/44.0/42.6/63.2 (llama.cpp 35.6/35.3/34.6/34.4).
// TESSERA_CPU_DECODE_REPACK=off never makes a copy, =on always does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <tessera/kit/huge_page_memory.h>
#include <tessera/plugin_abi.h>

namespace tessera::cpu {

enum class DecodeRepack {
  kOff,   // decode reads the original bytes
  kOn,    // a copy of every weight that has a faster layout
  kAuto,  // the same, while the memory it takes leaves enough available (reserve below)
};

// TESSERA_CPU_DECODE_REPACK: "off", "on", anything else or unset: auto (read once per
// process).
DecodeRepack decode_repack();

class RepackedWeights {
 public:
  // Which weight a copy is of: its offset in the buffer, dtype and shape.
  struct Key {
    uint64_t offset = 0;
    tsr_dtype dtype = TSR_DTYPE_F32;
    int64_t rows = 0, cols = 0;
    auto operator<=>(const Key&) const = default;
  };
  // The copy for `key`, `bytes` long, filled by make(copy) on the first call. Null when
  // it is not made: the memory cannot be had, or `reserve` > 0 and the system's available
  // memory (kit/host_memory.h) would fall below `reserve` bytes with it. A refused copy
  // is not asked for again until clear(), so a decode step does not read the system's
  // figures once per weight; the caller then reads the original.
  const std::byte* find_or_make(const Key& key, size_t bytes, uint64_t reserve,
                                const std::function<void(std::byte*)>& make);
  // Forgets every copy and refusal (the buffer's bytes changed).
  void clear();
  // Copies held, and their bytes.
  size_t count();
  size_t bytes();

 private:
  // `bytes` at a 64-byte boundary in the last chunk, or in a new one; null when the
  // system gives no memory.
  std::byte* allocate(size_t bytes);

  std::mutex mutex_;
  // A refused copy is kept as a null pointer.
  std::map<Key, std::pair<std::byte*, size_t>> copies_;
  std::vector<kit::HugePageMemory> chunks_;
  size_t chunk_used_ = 0;  // bytes taken of chunks_.back()
};

}  // namespace tessera::cpu
