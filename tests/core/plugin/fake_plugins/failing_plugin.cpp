// Test plugin "failing": its only kernel returns an error status with a last_error text.
#include "fake_backend.h"

namespace {

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_ADD, TSR_DTYPE_F32, 0, "add_f32_broken", fake::failing_kernel},
};

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.name = "failing";
  t.kernel_count = 1;
  t.kernels = kKernels;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
