// Test plugin "aliased": exports its entry point with BOOST_DLL_ALIAS (a pointer to
// the function) instead of as a plain C function.
#include <boost/dll/alias.hpp>

#include "fake_backend.h"

namespace aliased {

const tsr_plugin* entry() {
  static const tsr_plugin table = [] {
    tsr_plugin t = fake::base_table();
    t.name = "aliased";
    return t;
  }();
  return &table;
}

}  // namespace aliased

BOOST_DLL_ALIAS(aliased::entry, tessera_plugin_entry)
