// Test plugin built for a future ABI version: refused.
#include "fake_backend.h"

namespace {

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.abi_version = 7;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
