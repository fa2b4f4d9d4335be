// Test plugin "absent": loads fine but has no device, and says why.
#include "fake_backend.h"

namespace {

int32_t no_devices() { return 0; }
const char* why_no_devices() { return "no fake hardware present"; }

tsr_plugin make_table() {
  tsr_plugin t = fake::base_table();
  t.name = "absent";
  t.device_count = no_devices;
  t.unavailable_reason = why_no_devices;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
