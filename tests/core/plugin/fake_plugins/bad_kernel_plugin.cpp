// Test plugin listing a kernel for an op the host does not know: refused.
#include <cstring>

#include "fake_backend.h"

namespace {

tsr_kernel_desc kKernels[] = {
    {TSR_OP_ADD, TSR_DTYPE_F32, 0, "add_f32", fake::failing_kernel},
    {TSR_OP_ADD, TSR_DTYPE_F32, 0, "bogus", fake::failing_kernel},
};

tsr_plugin make_table() {
  // Op 99 written as raw bytes, as a plugin built against a newer ABI would leave it
  // (a cast to tsr_op would be undefined for a value outside the enumerators).
  const int32_t unknown_op = 99;
  std::memcpy(&kKernels[1].op, &unknown_op, sizeof unknown_op);
  tsr_plugin t = fake::base_table();
  t.name = "bad_kernel";
  t.kernel_count = 2;
  t.kernels = kKernels;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
