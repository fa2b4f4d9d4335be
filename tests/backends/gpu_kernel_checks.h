// Checks that every GPU backend's tests run the same way, on the backend of the test
// program (gpu_session.h): its plugin table and kernel list, buffer round trips and
// range checks, and kernels against the CPU reference (KV_WRITE, the
// mixture-of-experts ops). Each is a function a backend's TEST or TEST_P calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tessera/plugin_abi.h>

namespace tessera::gpu_test {

// The plugin loaded as `name` 0.1.0, with steps and without host pointers.
void expect_device_backend_table(const std::string& name);
// Every (op, dtype) the CPU plugin registers, and nothing else.
void expect_every_cpu_kernel_registered();
// Bytes written at offset 333 of a device buffer read back unchanged.
void expect_unaligned_round_trip();
// A buffer_write past a buffer's end refused with TSR_E_INVALID_ARGUMENT and its message.
void expect_overrun_refused();

struct KvWriteCase {
  tsr_dtype dtype;
  int32_t n_blocks, block_size, n_kv_heads, head_dim, n_tokens;
};
std::string kv_write_case_name(const KvWriteCase& c);
// x written at shuffled slots of a cache filled at random: the output (every row, the
// untouched ones too) within `tolerance` of the reference's, relative to its largest value.
void expect_kv_write_like_reference(const KvWriteCase& c, double tolerance);

struct MoeRouteCase {
  std::string name;
  int64_t tokens, experts;
  tsr_moe_route_params p;
};
std::vector<MoeRouteCase> moe_route_cases();
// The route's experts exactly, its weights within 1e-5.
void expect_moe_route_like_reference(const MoeRouteCase& c);

struct MoeMatmulCase {
  tsr_dtype dtype;
  int64_t tokens;
  bool per_slot;  // x has k * K columns
};
std::vector<MoeMatmulCase> moe_matmul_cases();
std::string moe_matmul_case_name(const MoeMatmulCase& c);
// Within 1e-4 of the largest output (both decode the weights exactly; only the order
// of the sums differs).
void expect_moe_matmul_like_reference(const MoeMatmulCase& c);

// Within 1e-6 of the largest output.
void expect_moe_combine_like_reference();

}  // namespace tessera::gpu_test
