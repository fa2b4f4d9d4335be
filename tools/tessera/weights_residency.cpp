#include "tools/tessera/weights_residency.h"

#include "tools/tessera/options.h"

namespace tessera::cli {

FileResidency choose_weights_residency(const ResidencyRequest& r) {
  if (r.mmap && r.no_mmap) throw UsageError{"--mmap and --no-mmap contradict each other: pass one"};
  if (r.mmap) return FileResidency::kMapped;
  if (r.no_mmap) return FileResidency::kInMemory;
  const bool fits = r.available_bytes > 0 && r.file_bytes <= r.available_bytes / 2;
  return r.reads_host_memory && fits ? FileResidency::kInMemory : FileResidency::kMapped;
}

}  // namespace tessera::cli
