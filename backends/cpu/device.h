// The one device of the CPU plugin: its description (ISA, threads, RAM), its thread
// pool, and the message of its last failure for the ABI's last_error.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <tessera/plugin_abi.h>

#include "backends/cpu/thread_pool.h"

namespace tessera::cpu {

class CpuDevice {
 public:
  // n_threads: 0 = hardware concurrency.
  explicit CpuDevice(int n_threads = 0) : pool_(n_threads) {}

  ThreadPool& pool() { return pool_; }
  int n_threads() const { return pool_.size(); }

  const char* last_error() const { return last_error_.c_str(); }
  void set_error(std::string message) noexcept { last_error_.swap(message); }

 private:
  ThreadPool pool_;
  std::string last_error_;
};

// Fills name "cpu", a description (kernel_isa() and the default thread count) and the
// physical RAM.
void describe_cpu_device(tsr_device_info* out);

// Which copy of the optimised kernels runs and why (isa.h), and the block formats'
// prefill path: "x86-64, kernels avx512: matmul, attention, norm and element-wise; block-format
// prefill on amx".
std::string kernel_isa();

// Physical RAM in bytes; 0 if unknown.
uint64_t physical_memory_bytes();

}  // namespace tessera::cpu
