#include "core/plugin/entry_point.h"

#include <dlfcn.h>
#include <link.h>

#include "core/util/error.h"

namespace tessera {
namespace {

enum class SymbolKind { Function, Pointer, Unknown };

// Reads the ELF symbol type behind `address`: a plain export is STT_FUNC, while
// BOOST_DLL_ALIAS exports a data object (STT_OBJECT) holding the function's address.
SymbolKind symbol_kind(const void* address) {
#if defined(__GLIBC__)
  Dl_info info{};
  void* entry = nullptr;  // receives a const ElfW(Sym)*
  if (dladdr1(address, &info, &entry, RTLD_DL_SYMENT) == 0 || entry == nullptr) {
    return SymbolKind::Unknown;
  }
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  switch (ELF64_ST_TYPE(symbol->st_info)) {
    case STT_FUNC:
    case STT_GNU_IFUNC: return SymbolKind::Function;
    case STT_OBJECT: return SymbolKind::Pointer;
    default: return SymbolKind::Unknown;
  }
#else
  (void)address;
  return SymbolKind::Unknown;
#endif
}

}  // namespace

tsr_plugin_entry_fn find_entry_point(const boost::dll::shared_library& library,
                                     const std::string& file) {
  if (!library.has(TSR_PLUGIN_ENTRY_SYMBOL)) {
    throw Error(file + ": no entry point '" TSR_PLUGIN_ENTRY_SYMBOL "' (not a Tessera plugin?)");
  }
  // get<T> of a non-function T yields a reference to the symbol itself: its address.
  const void* address = &library.get<const unsigned char>(TSR_PLUGIN_ENTRY_SYMBOL);
  if (symbol_kind(address) == SymbolKind::Pointer) {
    const void* target = *static_cast<const void* const*>(address);
    if (target == nullptr) {
      throw Error(file + ": entry point '" TSR_PLUGIN_ENTRY_SYMBOL "' is a null pointer");
    }
    return reinterpret_cast<tsr_plugin_entry_fn>(const_cast<void*>(target));
  }
  // A function, or a symbol glibc cannot classify: the ABI declares it a function.
  return reinterpret_cast<tsr_plugin_entry_fn>(const_cast<void*>(address));
}

}  // namespace tessera
