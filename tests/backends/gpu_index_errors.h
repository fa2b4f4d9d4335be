// The index errors GPU kernels find on the device and report through the error word
// (kit/device_errors.h), run the same way on every GPU backend of the test program
// (gpu_session.h): each function runs one call with a bad index and returns the error
// message it came back with ("" when it succeeded).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gpu_test {

// GET_ROWS of `ids` from a 7-row f32 table, outside a step.
std::string get_rows_error(const std::vector<int32_t>& ids);
// KV_WRITE of two tokens at `slots` into an f16 cache of 8 blocks of 8 rows (64 rows).
std::string kv_write_error(const std::vector<int32_t>& slots);
// ATTENTION of one token at `position` of sequence `seq` (of one block table, `table`,
// with blocks of 4 keys) over a cache of 2 blocks.
std::string attention_error(int32_t position, int32_t seq, const std::vector<int32_t>& table);
// MOE_MATMUL of two tokens with 2 slots each over 3 experts, the route's expert indices
// `experts` (t0 j0, t0 j1, t1 j0, t1 j1).
std::string moe_matmul_error(const std::vector<float>& experts);
// GET_ROWS with idx -1 inside a step: the call returns without error, step_end reports
// "get_rows: idx[1] = -1 ...", and the next call succeeds (the word was cleared).
void expect_step_end_reports_the_kernels_error();

}  // namespace tessera::gpu_test
