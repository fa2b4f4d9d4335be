// Finds a loaded plugin's entry point, whether the plugin exports it as a C function
// (the ABI's form) or as a BOOST_DLL_ALIAS pointer to that function.
#pragma once

#include <string>

#include <boost/dll/shared_library.hpp>
#include <tessera/plugin_abi.h>

namespace tessera {

// The function behind TSR_PLUGIN_ENTRY_SYMBOL in `library`. Throws tessera::Error
// "<file>: no entry point 'tessera_plugin_entry' (not a Tessera plugin?)" when the
// symbol is missing, or naming the problem when it is neither form.
tsr_plugin_entry_fn find_entry_point(const boost::dll::shared_library& library,
                                     const std::string& file);

}  // namespace tessera
