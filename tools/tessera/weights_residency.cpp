#include "tools/tessera/weights_residency.h"

#include <fstream>
#include <sstream>

#include "tools/tessera/options.h"

namespace tessera::cli {

FileResidency choose_weights_residency(const ResidencyRequest& r) {
  if (r.mmap && r.no_mmap) throw UsageError{"--mmap and --no-mmap contradict each other: pass one"};
  if (r.mmap) return FileResidency::kMapped;
  if (r.no_mmap) return FileResidency::kInMemory;
  const bool fits = r.available_bytes > 0 && r.file_bytes <= r.available_bytes / 2;
  return r.reads_host_memory && fits ? FileResidency::kInMemory : FileResidency::kMapped;
}

uint64_t memory_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    uint64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB") return kib * 1024;
    return 0;
  }
  return 0;
}

}  // namespace tessera::cli
