// Test plugin "copying": no buffer_wrap_host and no buffer_host_ptr (not host-visible).
#include "fake_backend.h"

namespace {

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.name = "copying";
  t.buffer_wrap_host = nullptr;
  t.buffer_host_ptr = nullptr;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
