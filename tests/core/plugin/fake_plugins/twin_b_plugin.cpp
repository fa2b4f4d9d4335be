// Test plugin "twin", second of two plugins with the same name: refused.
#include "fake_backend.h"

namespace {

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.name = "twin";
  t.version = "b";
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
