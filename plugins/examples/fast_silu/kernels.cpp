// Argument checks (the same rules and messages as the CPU backend's kernels) and the
// vectorised loops of fast_silu's two kernels.
#include "kernels.h"

#include <tessera/kit/call_args.h>
#include <tessera/kit/tensor_check.h>

#include "vector_silu.h"

namespace fast_silu {

namespace kit = tessera::kit;

void silu_f32(const tsr_op_call& call) {
  const char* op = "silu";
  kit::expect_input_count(call, 1, 1, op);
  const kit::HostView x = kit::host_input(call, 0, op, "x");  // [.., C]
  const kit::HostView out = kit::host_output(call, op);       // [.., C]
  kit::expect_dtype(x, TSR_DTYPE_F32, op, "x");
  kit::expect_dtype(out, TSR_DTYPE_F32, op, "out");
  kit::expect_matrix(out, x.rows(), x.cols(), op, "out");
  silu(x.as<const float>(), out.as<float>(), x.elements());
}

void swiglu_f32(const tsr_op_call& call) {
  const char* op = "swiglu";
  kit::expect_input_count(call, 2, 2, op);
  const kit::HostView gate = kit::host_input(call, 0, op, "gate");  // [N, C]
  const kit::HostView up = kit::host_input(call, 1, op, "up");      // [N, C]
  const kit::HostView out = kit::host_output(call, op);             // [N, C]
  kit::expect_dtype(gate, TSR_DTYPE_F32, op, "gate");
  kit::expect_dtype(up, TSR_DTYPE_F32, op, "up");
  kit::expect_dtype(out, TSR_DTYPE_F32, op, "out");
  kit::expect_matrix(up, gate.rows(), gate.cols(), op, "up");
  kit::expect_matrix(out, gate.rows(), gate.cols(), op, "out");
  swiglu(gate.as<const float>(), up.as<const float>(), out.as<float>(), gate.elements());
}

}  // namespace fast_silu
