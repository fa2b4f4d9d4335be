// Test plugin "loop": a kernel plugin that names itself as the backend it extends: refused.
#include <tessera/plugin_abi.h>

namespace {

const char* last_error(void*) { return ""; }

tsr_plugin make_table() {
  tsr_plugin t{};
  t.abi_version = TSR_ABI_VERSION;
  t.struct_size = sizeof(tsr_plugin);
  t.name = "loop";
  t.last_error = last_error;
  t.extends = "loop";
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
