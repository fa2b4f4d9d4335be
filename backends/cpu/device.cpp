// Device description of the CPU plugin: the kernels' instruction set, threads and RAM.
#include "backends/cpu/device.h"

#include "backends/cpu/decode_rows.h"
#include "backends/cpu/isa.h"
#include "backends/cpu/ops/matmul_bf16.h"
#include "backends/cpu/ops/matmul_quant.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

namespace tessera::cpu {

std::string kernel_isa() {
#if defined(__x86_64__)
  std::string isa = "x86-64";
#elif defined(__aarch64__)
  std::string isa = "aarch64";
#else
  std::string isa = "generic";
#endif
  isa += ", kernels ";
  isa += isa_choice();
  isa += ": matmul, attention, norm and element-wise; block-format prefill on ";
  isa += quant_prefill_path();
  isa += ", bf16 prefill on ";
  isa += bf16_prefill_path();
  isa += ", decode rows ";
  isa += decode_rows_name(decode_rows());
  if (const int64_t ahead = decode_read_ahead(); ahead > 0) isa += ", read ahead " + std::to_string(ahead) + " bytes";
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
                kernel_isa().c_str(), threads, threads == 1 ? "" : "s");
  out->memory_bytes = physical_memory_bytes();
  out->host_visible = 1;
}

}  // namespace tessera::cpu
