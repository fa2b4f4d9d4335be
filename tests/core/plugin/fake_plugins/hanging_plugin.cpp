// Test plugin whose entry point never returns: a probe with a timeout kills it and
// refuses the file.
#include <unistd.h>

#include <tessera/plugin_abi.h>

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) {
  for (;;) ::pause();
}
