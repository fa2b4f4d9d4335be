// Test plugin whose table is smaller than the host's tsr_plugin: refused.
#include "fake_backend.h"

namespace {

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.struct_size = offsetof(tsr_plugin, kernel_count);
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
