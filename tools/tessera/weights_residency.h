// How the CLI holds a model's weights file (core/util/mapped_file.h): --no-mmap reads it
// into memory, --mmap maps it; by default a model that runs on the CPU backend is read
// into memory (2 MiB pages stream faster through the TLB: TinyLlama-shaped f16 decode,
// 2 threads on a Zen 4, about 1.1x) when the file takes at most half the memory the
// system has available, and mapped otherwise (a GPU backend copies the weights to its
// own memory, and a mapping costs no private memory).
#pragma once

#include <cstdint>
#include <string>

#include "core/util/mapped_file.h"

namespace tessera::cli {

struct ResidencyRequest {
  bool mmap = false;     // --mmap
  bool no_mmap = false;  // --no-mmap
  std::string backend;   // -b NAME[:N]
  uint64_t file_bytes = 0;
  uint64_t available_bytes = 0;  // 0: unknown
};

// Throws UsageError when both --mmap and --no-mmap are given.
FileResidency choose_weights_residency(const ResidencyRequest& r);

// MemAvailable of /proc/meminfo in bytes; 0 where it cannot be read.
uint64_t memory_available_bytes();

}  // namespace tessera::cli
