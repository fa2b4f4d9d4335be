// Test library that is a valid shared object but exports no Tessera entry point.
#include <tessera/plugin_abi.h>

extern "C" TSR_PLUGIN_EXPORT int not_a_tessera_plugin(void) { return 42; }
