// The kit's access to a kernel call: input count, missing inputs, params, host views.
#include <tessera/kit/call_args.h>

#include <gtest/gtest.h>

#include <string>
#include "plugins/kit/kernel_failure.h"

namespace tessera::kit {
namespace {

using test::failure;

tsr_tensor host_f32(float* data, int64_t n) {
  tsr_tensor t{};
  t.dtype = TSR_DTYPE_F32;
  t.ndim = 1;
  t.shape[0] = n;
  t.shape[1] = t.shape[2] = t.shape[3] = 1;
  t.host_data = data;
  return t;
}

TEST(CallArgs, InputCountNamesTheRange) {
  const tsr_tensor in[3] = {};
  const tsr_op_call call{TSR_OP_LAYER_NORM, nullptr, 3, in, nullptr};
  EXPECT_NO_THROW(expect_input_count(call, 2, 3, "layer_norm"));
  EXPECT_EQ(failure([&] { expect_input_count(call, 1, 2, "layer_norm"); }),
            "layer_norm: expects 1..2 inputs, got 3");
  EXPECT_EQ(failure([&] { expect_input_count(call, 2, 2, "matmul"); }), "matmul: expects 2 inputs, got 3");
}

TEST(CallArgs, MissingInputIsNamed) {
  const tsr_tensor in[1] = {};
  const tsr_op_call call{TSR_OP_ADD, nullptr, 1, in, nullptr};
  EXPECT_EQ(input_desc(call, 0, "add", "a"), &in[0]);
  EXPECT_EQ(failure([&] { input_desc(call, 1, "add", "b"); }), "add: b is missing");
}

TEST(CallArgs, HostInputAndOutputAreChecked) {
  float x[4] = {1, 2, 3, 4};
  float y[4] = {};
  const tsr_tensor in = host_f32(x, 4);
  const tsr_tensor out = host_f32(y, 4);
  const tsr_op_call call{TSR_OP_SILU, nullptr, 1, &in, &out};
  EXPECT_EQ(host_input(call, 0, "silu", "x").as<float>(), x);
  EXPECT_EQ(host_output(call, "silu").as<float>(), y);
}

TEST(CallArgs, HostOutputWithoutHostDataIsRejected) {
  float x[1] = {};
  const tsr_tensor in = host_f32(x, 1);
  const tsr_tensor out = host_f32(nullptr, 1);
  const tsr_op_call call{TSR_OP_SILU, nullptr, 1, &in, &out};
  EXPECT_EQ(failure([&] { host_output(call, "silu"); }), "silu: out is not in host memory (host_data is NULL)");
}

TEST(CallArgs, ParamsAreReturnedOrMissing) {
  const tsr_scale_params p{2.5f};
  const tsr_op_call with{TSR_OP_SCALE, &p, 0, nullptr, nullptr};
  EXPECT_EQ(params_of<tsr_scale_params>(with, "scale").scale, 2.5f);
  const tsr_op_call without{TSR_OP_SCALE, nullptr, 0, nullptr, nullptr};
  EXPECT_EQ(failure([&] { params_of<tsr_scale_params>(without, "scale"); }), "scale: params are missing");
}

}  // namespace
}  // namespace tessera::kit
