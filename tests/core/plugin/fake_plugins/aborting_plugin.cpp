// Test plugin whose entry point calls abort(), as a broken library might: loaded in a
// child process first, it is refused ("crashed while loading: signal 6") and the
// program that scanned it goes on.
#include <cstdlib>

#include <tessera/plugin_abi.h>

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { std::abort(); }
