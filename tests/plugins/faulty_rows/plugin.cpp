// A kernel plugin that fails on purpose, for the tests of a failing step: it extends
// the "cpu" backend with a correct GET_ROWS f32 kernel (embedding lookup and output row
// selection) above the built-in one, which fails
//  - whenever the ids contain the token FAULTY_ROWS_POISON (a request that always
//    fails: the engine must fail it alone), or
//  - on its FAULTY_ROWS_FAIL_CALL-th call since it saw the variable set, only (a
//    transient fault: a retry succeeds);
// and gives a row of NaN for the token FAULTY_ROWS_NAN (a request whose logits come out
// NaN while its step succeeds: the sampler, not a kernel, fails it).
// Both read from the environment at each call; unset, the kernel never fails.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <tessera/kit/call_args.h>
#include <tessera/kit/guard.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/last_error.h>
#include <tessera/kit/op_params.h>
#include <tessera/plugin_abi.h>

namespace faulty_rows {
namespace {

namespace kit = tessera::kit;

kit::LastError g_last_error;
long long g_calls = 0;
long long g_armed_at = -1;  // the call count when FAULTY_ROWS_FAIL_CALL was first seen set

long long env_number(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : -1;
}

void get_rows_f32(const tsr_op_call& call) {
  const char* op = "get_rows";
  kit::expect_input_count(call, 2, 2, op);
  const kit::HostView table = kit::host_input(call, 0, op, "table");  // [R, C]
  const kit::HostView idx = kit::host_input(call, 1, op, "idx");      // [N]
  const kit::HostView out = kit::host_output(call, op);               // [N, C]
  kit::check_get_rows(table, idx, out);
  kit::expect_dtype(table, TSR_DTYPE_F32, op, "table");
  ++g_calls;
  const long long fail_call = env_number("FAULTY_ROWS_FAIL_CALL");
  if (fail_call < 0) {
    g_armed_at = -1;
  } else {
    if (g_armed_at < 0) g_armed_at = g_calls - 1;
    if (g_calls - g_armed_at == fail_call) kit::fail(op, "faulty_rows: call " + std::to_string(fail_call) + " fails");
  }
  const long long poison = env_number("FAULTY_ROWS_POISON");
  const long long nan_token = env_number("FAULTY_ROWS_NAN");
  const auto* ids = idx.as<const int32_t>();
  for (int64_t i = 0; i < idx.elements(); ++i) {
    if (ids[i] == poison) kit::fail(op, "faulty_rows: token " + std::to_string(poison) + " is poison");
    if (ids[i] < 0 || ids[i] >= table.rows()) kit::fail(op, "faulty_rows: id out of range");
    std::memcpy(out.row<float>(i), table.row<const float>(ids[i]), static_cast<size_t>(table.row_bytes()));
    if (ids[i] == nan_token) std::fill_n(out.row<float>(i), table.row_bytes() / sizeof(float), std::nanf(""));
  }
}

tsr_status entry(void*, const tsr_op_call* call) {
  return kit::run_guarded(
      call, TSR_OP_GET_ROWS, "faulty_rows", [](std::string message) noexcept { g_last_error.set(message); },
      [](const tsr_op_call& checked) { get_rows_f32(checked); });
}

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_GET_ROWS, TSR_DTYPE_F32, 30, "faulty_rows.get_rows.f32", entry, nullptr},
};

const char* last_error(void*) { return g_last_error.get(); }

tsr_plugin make_plugin() {
  tsr_plugin p{};
  p.abi_version = TSR_ABI_VERSION;
  p.struct_size = sizeof(tsr_plugin);
  p.name = "faulty_rows";
  p.version = "0.1.0";
  p.last_error = last_error;
  p.kernel_count = 1;
  p.kernels = kKernels;
  p.extends = "cpu";
  return p;
}

}  // namespace
}  // namespace faulty_rows

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  static const tsr_plugin plugin = faulty_rows::make_plugin();
  return &plugin;
}
