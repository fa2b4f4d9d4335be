// Test plugin "fake": the well-behaved case (one device, four kernels, zero-copy wrap).
#include "fake_backend.h"

namespace {

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.kernel_count = fake::kGoodKernelCount;
  t.kernels = fake::kGoodKernels;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
