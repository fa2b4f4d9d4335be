// Test plugin "fake_ext": a kernel plugin extending "fake". No device or buffer slots;
// its kernels read and write through host_data and report through last_error(NULL):
// add f32 at priority 20 (outranks fake's 10), scale f32 at priority 20 that always fails.
// Built a second time as "copying_ext", extending "copying" (not host-visible).
#include <string>

#include <tessera/plugin_abi.h>

#ifndef FAKE_EXT_NAME
#define FAKE_EXT_NAME "fake_ext"
#define FAKE_EXT_EXTENDS "fake"
#endif

namespace {

std::string g_last_error;
int g_calls = 0;

const char* last_error(void* device) { return device ? "unexpected device" : g_last_error.c_str(); }

tsr_status fail(const char* message) {
  g_last_error = message;
  return TSR_E_INVALID_ARGUMENT;
}

tsr_status add_f32(void* device, const tsr_op_call* call) {
  if (device != nullptr) return fail("fake_ext: kernel called with a device");
  const tsr_tensor& a = call->inputs[0];
  const tsr_tensor& b = call->inputs[1];
  if (!a.host_data || !b.host_data || !call->output->host_data) return fail("fake_ext: no host_data");
  ++g_calls;
  const auto* pa = static_cast<const float*>(a.host_data);
  const auto* pb = static_cast<const float*>(b.host_data);
  auto* out = static_cast<float*>(call->output->host_data);
  for (int64_t i = 0; i < call->output->shape[0]; ++i) out[i] = pa[i] + pb[i];
  return TSR_OK;
}

tsr_status broken_scale(void*, const tsr_op_call*) { return fail("fake_ext: scale refuses"); }

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_ADD, TSR_DTYPE_F32, 20, "ext_add_f32", add_f32},
    {TSR_OP_SCALE, TSR_DTYPE_F32, 20, "ext_scale_f32_broken", broken_scale},
};

tsr_plugin make_table() {
  tsr_plugin t{};
  t.abi_version = TSR_ABI_VERSION;
  t.struct_size = sizeof(tsr_plugin);
  t.name = FAKE_EXT_NAME;
  t.version = "0.0.1";
  t.last_error = last_error;
  t.kernel_count = 2;
  t.kernels = kKernels;
  t.extends = FAKE_EXT_EXTENDS;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
extern "C" TSR_PLUGIN_EXPORT int fake_ext_calls(void) { return g_calls; }
