// The one device of the CPU plugin: its description (ISA, threads, RAM), its thread
// pool, the message of its last failure for the ABI's last_error, and what a kernel
// keeps from one call to the next.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <tessera/plugin_abi.h>

#include "backends/cpu/thread_pool.h"

namespace tessera::cpu {

// The angles of the last ROPE call of a few tokens (ops/rope.cpp), for the next with the
// same parameters, freq_factors and positions. Kept by the device, not per thread: a
// thread_local with a destructor would pin the plugin in the process after dlclose.
struct RopeAngleCache {
  tsr_rope_params p{};  // n_heads, head_dim and pairing zeroed: the angles do not use them
  std::vector<float> factors;
  std::vector<int32_t> positions;
  std::vector<double> cs;  // [T, n_rot]
};

class CpuDevice {
 public:
  // n_threads: 0 = hardware concurrency.
  explicit CpuDevice(int n_threads = 0) : pool_(n_threads) {}

  ThreadPool& pool() { return pool_; }
  int n_threads() const { return pool_.size(); }

  const char* last_error() const { return last_error_.c_str(); }
  void set_error(std::string message) noexcept { last_error_.swap(message); }

  RopeAngleCache& rope_angles() { return rope_angles_; }

 private:
  ThreadPool pool_;
  std::string last_error_;
  RopeAngleCache rope_angles_;
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
