#include "core/exec/kv_transfer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace tessera {
namespace {

void check_same_layout(const GraphExecutor& from, const GraphExecutor& to) {
  const std::string where = "cannot move the KV cache from " + from.device().name() + " to " + to.device().name();
  if (from.kv_shape().block_size != to.kv_shape().block_size) {
    throw Error(where + ": its blocks hold " + std::to_string(from.kv_shape().block_size) + " tokens there and " +
                std::to_string(to.kv_shape().block_size) + " here");
  }
  if (from.n_cache_tensors() != to.n_cache_tensors()) {
    throw Error(where + ": " + std::to_string(from.n_cache_tensors()) + " cache tensors there, " +
                std::to_string(to.n_cache_tensors()) + " here");
  }
  for (int32_t k = 0; k < from.n_cache_tensors(); ++k) {
    if (from.kv_row_elems(k) != to.kv_row_elems(k)) {
      throw Error(where + ": cache tensor " + std::to_string(k) + " has rows of " + std::to_string(from.kv_row_elems(k)) +
                  " elements there and " + std::to_string(to.kv_row_elems(k)) + " here");
    }
  }
}

// Rows of `n_rows` tokens from one KV dtype to another, through f32.
void convert_rows(DType from, const uint8_t* src, DType to, uint8_t* dst, int64_t n_rows, int64_t width) {
  std::vector<float> row(static_cast<size_t>(width));
  const auto src_row = static_cast<size_t>(dtype_row_bytes(from, width));
  const auto dst_row = static_cast<size_t>(dtype_row_bytes(to, width));
  for (int64_t r = 0; r < n_rows; ++r) {
    dequantize_row(from, src + src_row * static_cast<size_t>(r), row.data(), width);
    quantize_row(to, row.data(), dst + dst_row * static_cast<size_t>(r), width);
  }
}

}  // namespace

KvTransfer transfer_kv_blocks(const GraphExecutor& from, GraphExecutor& to, std::span<const KvBlockMove> moves) {
  check_same_layout(from, to);
  std::vector<KvBlockMove> sorted(moves.begin(), moves.end());
  std::sort(sorted.begin(), sorted.end(), [](const KvBlockMove& a, const KvBlockMove& b) { return a.dst < b.dst; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].dst == sorted[i - 1].dst) {
      throw Error("KV transfer: block " + std::to_string(sorted[i].dst) + " of the target is written twice");
    }
  }
  KvTransfer done;
  std::vector<uint8_t> staging, converted;
  for (size_t run = 0; run < sorted.size();) {
    size_t end = run + 1;
    while (end < sorted.size() && sorted[end].dst == sorted[end - 1].dst + 1 &&
           sorted[end].src == sorted[end - 1].src + 1) {
      ++end;
    }
    const auto count = static_cast<int32_t>(end - run);
    for (int32_t k = 0; k < from.n_cache_tensors(); ++k) {
      const uint64_t bytes = from.kv_block_bytes(k) * static_cast<uint64_t>(count);
      staging.resize(bytes);
      from.read_kv_blocks(k, sorted[run].src, count, staging.data());
      if (from.kv_dtype(k) != to.kv_dtype(k)) {
        converted.resize(to.kv_block_bytes(k) * static_cast<uint64_t>(count));
        convert_rows(from.kv_dtype(k), staging.data(), to.kv_dtype(k), converted.data(),
                     int64_t{count} * from.kv_shape().block_size, from.kv_row_elems(k));
        to.write_kv_blocks(k, sorted[run].dst, count, converted.data());
      } else {
        to.write_kv_blocks(k, sorted[run].dst, count, staging.data());
      }
      done.bytes += bytes;
    }
    done.blocks += count;
    run = end;
  }
  return done;
}

KvTransfer transfer_kv_blocks(const GraphExecutor& from, GraphExecutor& to, std::span<const int32_t> blocks) {
  if (from.kv_shape().n_blocks != to.kv_shape().n_blocks) {
    throw Error("cannot move the KV cache from " + from.device().name() + " to " + to.device().name() +
                " block for block: it has " + std::to_string(from.kv_shape().n_blocks) + " blocks there and " +
                std::to_string(to.kv_shape().n_blocks) + " here");
  }
  std::vector<KvBlockMove> moves;
  moves.reserve(blocks.size());
  for (int32_t b : blocks) moves.push_back({b, b});
  return transfer_kv_blocks(from, to, moves);
}

}  // namespace tessera
