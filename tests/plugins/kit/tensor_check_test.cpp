// The kit's descriptor checks: each rule with its exact message, against a buffer whose
// size the test controls through the BufferSizeFn.
#include <tessera/kit/tensor_check.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <tessera/kit/kernel_error.h>
#include "plugins/kit/kernel_failure.h"

namespace tessera::kit {
namespace {

// The test's stand-in for a plugin buffer: the handle is never dereferenced by the kit.
uint64_t g_buffer_bytes = 0;
uint64_t test_buffer_size(tsr_buffer) { return g_buffer_bytes; }
tsr_buffer fake_handle() { return reinterpret_cast<tsr_buffer>(uintptr_t{0x1000}); }

tsr_tensor tensor(tsr_dtype dtype, std::initializer_list<int64_t> shape, uint64_t offset = 0) {
  tsr_tensor t{};
  t.buffer = fake_handle();
  t.offset = offset;
  t.dtype = dtype;
  t.ndim = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t d : shape) t.shape[i++] = d;
  for (; i < 4; ++i) t.shape[i] = 1;
  return t;
}

// The message of the KernelError `f` throws.
using test::failure;

std::string check(const tsr_tensor* t, uint64_t buffer_bytes) {
  g_buffer_bytes = buffer_bytes;
  return failure([&] { check_tensor(t, "op", "x", test_buffer_size); });
}

TEST(CheckTensor, ReturnsShapeOffsetAndExtent) {
  const tsr_tensor t = tensor(TSR_DTYPE_F16, {3, 5}, 8);
  g_buffer_bytes = 38;
  const CheckedTensor c = check_tensor(&t, "op", "x", test_buffer_size);
  EXPECT_EQ(c.rows(), 3);
  EXPECT_EQ(c.cols(), 5);
  EXPECT_EQ(c.elements(), 15);
  EXPECT_EQ(c.bytes, 30u);
  EXPECT_EQ(c.offset, 8u);
  EXPECT_EQ(c.buffer, fake_handle());
}

TEST(CheckTensor, RejectsAMissingTensor) {
  EXPECT_EQ(check(nullptr, 64), "op: x is missing");
}

TEST(CheckTensor, RejectsATensorWithoutABuffer) {
  tsr_tensor t = tensor(TSR_DTYPE_F32, {4});
  t.buffer = nullptr;
  EXPECT_EQ(check(&t, 64), "op: x has no buffer");
}

TEST(CheckTensor, RejectsAnUnknownDtype) {
  tsr_tensor t = tensor(TSR_DTYPE_F32, {4});
  t.dtype = TSR_DTYPE_COUNT;
  EXPECT_EQ(check(&t, 64), "op: x has unknown dtype " + std::to_string(TSR_DTYPE_COUNT));
}

TEST(CheckTensor, RejectsNdimOutsideOneToFour) {
  tsr_tensor t = tensor(TSR_DTYPE_F32, {4});
  t.ndim = 5;
  EXPECT_EQ(check(&t, 64), "op: x has ndim 5 (must be 1..4)");
}

TEST(CheckTensor, RejectsANegativeDimension) {
  const tsr_tensor t = tensor(TSR_DTYPE_F32, {2, -3});
  EXPECT_EQ(check(&t, 64), "op: x has a negative dimension in [2, -3]");
}

TEST(CheckTensor, RejectsQ8RowsOfPartialBlocks) {
  const tsr_tensor t = tensor(TSR_DTYPE_Q8_0, {1, 40});
  EXPECT_EQ(check(&t, 1024), "op: x has 40 columns, not a multiple of the q8_0 block of 32");
}

TEST(CheckTensor, CountsQ8BlocksInTheExtent) {
  const tsr_tensor t = tensor(TSR_DTYPE_Q8_0, {2, 64});
  EXPECT_EQ(check(&t, 135), "op: x [2, 64] q8_0 needs 136 bytes at offset 0 but its buffer holds 135");
}

TEST(CheckTensor, RejectsATensorPastTheEndOfItsBuffer) {
  const tsr_tensor t = tensor(TSR_DTYPE_F32, {3, 8}, 4);
  EXPECT_EQ(check(&t, 96), "op: x [3, 8] f32 needs 96 bytes at offset 4 but its buffer holds 96");
}

TEST(CheckTensor, RejectsAnOffsetPastTheEndOfItsBuffer) {
  const tsr_tensor t = tensor(TSR_DTYPE_F32, {0}, 100);
  EXPECT_EQ(check(&t, 64), "op: x [0] f32 needs 0 bytes at offset 100 but its buffer holds 64");
}

TEST(CheckTensor, RejectsAShapeWhoseSizeOverflows) {
  const tsr_tensor t = tensor(TSR_DTYPE_F32, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(check(&t, 64), "op: x of shape [1099511627776, 1099511627776] is too large");
}

TEST(CheckTensor, RejectsAnOffsetMisalignedForTheDtype) {
  const tsr_tensor t = tensor(TSR_DTYPE_F32, {2}, 6);
  EXPECT_EQ(check(&t, 64), "op: x at offset 6 is not aligned to 4 bytes for f32");
}

TEST(CheckHostTensor, PointsAtHostData) {
  alignas(4) float data[6] = {};
  tsr_tensor t = tensor(TSR_DTYPE_F32, {2, 3});
  t.host_data = data;
  const HostView v = check_host_tensor(&t, "op", "x");
  EXPECT_EQ(v.as<float>(), data);
  EXPECT_EQ(v.row<float>(1), data + 3);
  EXPECT_EQ(v.row_bytes(), 12);
}

TEST(CheckHostTensor, RejectsATensorWithoutHostData) {
  const tsr_tensor t = tensor(TSR_DTYPE_F32, {4});
  EXPECT_EQ(failure([&] { check_host_tensor(&t, "swiglu", "gate"); }),
            "swiglu: gate is not in host memory (host_data is NULL)");
}

TEST(CheckHostTensor, RejectsMisalignedHostData) {
  alignas(4) std::byte data[16] = {};
  tsr_tensor t = tensor(TSR_DTYPE_F32, {2}, 2);
  t.host_data = data + 2;
  EXPECT_EQ(failure([&] { check_host_tensor(&t, "silu", "x"); }),
            "silu: x at offset 2 is not aligned to 4 bytes for f32");
}

TEST(CheckHostTensor, DoesNotNeedTheBufferHandle) {
  alignas(4) float data[2] = {};
  tsr_tensor t = tensor(TSR_DTYPE_F32, {2});
  t.buffer = nullptr;  // another plugin's handle, or none: only host_data matters
  t.host_data = data;
  EXPECT_EQ(check_host_tensor(&t, "op", "x").data, reinterpret_cast<std::byte*>(data));
}

TEST(Expect, DtypeNamesBothDtypes) {
  TensorInfo t;
  t.dtype = TSR_DTYPE_F16;
  EXPECT_EQ(failure([&] { expect_dtype(t, TSR_DTYPE_F32, "add", "a"); }), "add: a is f16, expected f32");
}

TEST(Expect, MatrixNamesBothShapes) {
  TensorInfo t;
  t.ndim = 3;
  t.shape[0] = 2;
  t.shape[1] = 2;
  t.shape[2] = 4;
  EXPECT_EQ(failure([&] { expect_matrix(t, 2, 4, "op", "out"); }),
            "op: out has shape [2, 2, 4], expected [2, 4]");
}

TEST(Expect, MatrixAcceptsFlattenedOuterDimensions) {
  TensorInfo t;
  t.ndim = 3;
  t.shape[0] = 2;
  t.shape[1] = 3;
  t.shape[2] = 4;
  EXPECT_NO_THROW(expect_matrix(t, 6, 4, "op", "out"));
}

TEST(Expect, VectorAcceptsAColumn) {
  TensorInfo t;
  t.ndim = 2;
  t.shape[0] = 5;
  t.shape[1] = 1;
  EXPECT_NO_THROW(expect_vector(t, 5, "op", "w"));
  EXPECT_EQ(failure([&] { expect_vector(t, 4, "rms_norm", "w"); }),
            "rms_norm: w has shape [5, 1], expected 4 elements");
}

TEST(Labels, NameDtypesAndShapes) {
  EXPECT_EQ(dtype_label(TSR_DTYPE_Q8_0), "q8_0");
  EXPECT_EQ(dtype_label(TSR_DTYPE_BF16), "bf16");
  EXPECT_EQ(dtype_label(static_cast<tsr_dtype>(42)), "unknown");
  TensorInfo t;
  t.ndim = 2;
  t.shape[0] = 3;
  t.shape[1] = 4;
  EXPECT_EQ(shape_label(t), "[3, 4]");
}

TEST(Labels, RowBytesFollowTheDtype) {
  EXPECT_EQ(dtype_row_bytes(TSR_DTYPE_F32, 10), 40);
  EXPECT_EQ(dtype_row_bytes(TSR_DTYPE_BF16, 10), 20);
  EXPECT_EQ(dtype_row_bytes(TSR_DTYPE_Q8_0, 64), 68);
  EXPECT_EQ(dtype_alignment(TSR_DTYPE_Q8_0), 2);
  EXPECT_EQ(dtype_alignment(TSR_DTYPE_I32), 4);
}

}  // namespace
}  // namespace tessera::kit
