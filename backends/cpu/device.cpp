// Device description of the CPU plugin, from compile-time ISA macros, cpuid and the OS.
#include "backends/cpu/device.h"

#include "backends/cpu/amx_support.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

namespace tessera::cpu {

std::string compiled_isa() {
  std::string isa;
#if defined(__x86_64__)
  isa = "x86-64";
#elif defined(__aarch64__)
  isa = "aarch64";
#else
  isa = "generic";
#endif
#if defined(__AVX512F__)
  isa += " AVX512F";
#endif
#if defined(__AVX512VNNI__)
  isa += " VNNI";  // the int8 dot products of the block formats' kernels
#endif
#if defined(__AMX_INT8__)
  if (amx_usable()) isa += " AMX";  // the block formats' prefill tiles, where Linux grants them
#endif
#if defined(__AVX2__)
  isa += " AVX2";
#endif
#if defined(__FMA__)
  isa += " FMA";
#endif
#if defined(__F16C__)
  isa += " F16C";
#endif
#if defined(__ARM_NEON)
  isa += " NEON";
#endif
  return isa;
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
}

void describe_cpu_device(tsr_device_info* out) {
  *out = tsr_device_info{};
  std::snprintf(out->name, sizeof out->name, "cpu");
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::snprintf(out->description, sizeof out->description, "%s, %u thread%s",
                compiled_isa().c_str(), threads, threads == 1 ? "" : "s");
  out->memory_bytes = physical_memory_bytes();
  out->host_visible = 1;
}

}  // namespace tessera::cpu
