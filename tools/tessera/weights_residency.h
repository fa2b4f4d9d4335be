// How the CLI holds a model's weights file (core/util/mapped_file.h): --no-mmap reads it
// into memory, --mmap maps it; by default it is read into memory when the backend reads
// the weights in place from host memory (its device wraps host memory: the cpu backend)
// and the file takes at most half the memory the system has available (2 MiB pages stream
// faster through the TLB: TinyLlama-shaped f16 decode, 2 threads on a Zen 4, about 1.2x),
// and mapped otherwise (a GPU backend copies the weights to its own memory, and a mapping
// costs no private memory).
#pragma once

#include <cstdint>

#include "core/util/mapped_file.h"

namespace tessera::cli {

struct ResidencyRequest {
  bool mmap = false;     // --mmap
  bool no_mmap = false;  // --no-mmap
  bool reads_host_memory = false;  // the backend's device wraps host memory (zero copy)
  uint64_t file_bytes = 0;
  uint64_t available_bytes = 0;  // 0: unknown
};

// Throws UsageError when both --mmap and --no-mmap are given.
FileResidency choose_weights_residency(const ResidencyRequest& r);

}  // namespace tessera::cli
