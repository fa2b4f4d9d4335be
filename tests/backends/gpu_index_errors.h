// The index errors GPU kernels find on the device and report through the error word
// (kit/device_errors.h), checked the same way on every GPU backend of the test program
// (gpu_session.h): each function runs a call with a bad index and expects the message
// every backend gives, and the same call with good indices to succeed.
#pragma once

namespace tessera::gpu_test {

// GET_ROWS from a 7-row table with idx[2] = 600, outside a step.
void expect_get_rows_index_reported();
// KV_WRITE with slot[1] = 64 into a cache of 64 rows.
void expect_kv_write_slot_reported();
// ATTENTION of one token whose block table names block 99 of a 2-block cache.
void expect_attention_block_reported();
// ... whose position is -1.
void expect_attention_negative_position_reported();
// ... whose seq is 3 of 1 block table.
void expect_attention_seq_reported();
// ... whose position 8 needs block index 2 of a table of 2.
void expect_attention_block_index_reported();
// MOE_MATMUL with route slot 2 naming expert 7 of 3.
void expect_moe_route_reported();
// GET_ROWS with idx -1 inside a step: the call returns without error, step_end reports
// "get_rows: idx[1] = -1 ...", and the next call succeeds (the word was cleared).
void expect_step_end_reports_the_kernels_error();

}  // namespace tessera::gpu_test
