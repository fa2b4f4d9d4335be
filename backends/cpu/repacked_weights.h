// Copies of weights in the layouts decode reads fastest (ops/q4k_rows8.h), kept with the
// buffer that holds the weights: made at a weight's first decode, freed with the buffer,
// dropped when the buffer is written. The original bytes (an mmapped file) are left as
// they are, and prefill keeps reading them, so a repacked weight costs its size again in
// memory. Opt-in (TESSERA_CPU_DECODE_REPACK=on): measured on an AMD EPYC (Zen 4) with 2
// threads, the Q4_K kernel's compute rate rose from 33 to 59 G weights/s per thread, but
// TinyLlama-shaped q4_k_m decode stayed at 41 tok/s, bound by memory either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include <tessera/plugin_abi.h>

namespace tessera::cpu {

// Whether decode uses repacked copies: TESSERA_CPU_DECODE_REPACK=on says yes (read once
// per process).
bool decode_repack_enabled();

class RepackedWeights {
 public:
  // Which weight a copy is of: its offset in the buffer, dtype and shape.
  struct Key {
    uint64_t offset = 0;
    tsr_dtype dtype = TSR_DTYPE_F32;
    int64_t rows = 0, cols = 0;
    auto operator<=>(const Key&) const = default;
  };
  // The copy for `key`, `bytes` long, filled by make(copy) on the first call; null when
  // the memory for it cannot be had (the caller then reads the original).
  const std::byte* find_or_make(const Key& key, size_t bytes, const std::function<void(std::byte*)>& make);
  // Forgets every copy (the buffer's bytes changed).
  void clear();
  // Copies held, and their bytes.
  size_t count();
  size_t bytes();

 private:
  std::mutex mutex_;
  std::map<Key, std::pair<std::unique_ptr<std::byte[]>, size_t>> copies_;
};

}  // namespace tessera::cpu
