// Test plugin whose entry point breaks the ABI by throwing a C++ exception: refused.
#include <stdexcept>

#include <tessera/plugin_abi.h>

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  throw std::runtime_error("entry point exploded");
}
