#include "core/plugin/table_check.h"

#include <cstring>

#include "core/plugin/op_decl_check.h"
#include "core/util/error.h"

namespace tessera {
namespace {

// The slots a host cannot work without in a backend. The optional ones
// (unavailable_reason, buffer_host_ptr, buffer_wrap_host, step_begin, step_end) may be null.
void check_backend_slots(const tsr_plugin& t, const std::string& file) {
  const struct {
    const char* slot;
    bool present;
  } required[] = {
      {"name", t.name != nullptr},
      {"device_count", t.device_count != nullptr},
      {"device_info", t.device_info != nullptr},
      {"device_open", t.device_open != nullptr},
      {"device_close", t.device_close != nullptr},
      {"buffer_alloc", t.buffer_alloc != nullptr},
      {"buffer_free", t.buffer_free != nullptr},
      {"buffer_write", t.buffer_write != nullptr},
      {"buffer_read", t.buffer_read != nullptr},
      {"last_error", t.last_error != nullptr},
  };
  for (const auto& r : required) {
    if (!r.present) throw Error(file + ": required slot '" + r.slot + "' is null");
  }
  if (t.name[0] == '\0') throw Error(file + ": plugin name is empty");
}

// A kernel plugin (extends set) needs only a name and last_error: the host never calls
// its device, buffer or step slots.
void check_extension_slots(const tsr_plugin& t, const std::string& file) {
  if (t.name == nullptr) throw Error(file + ": required slot 'name' is null");
  if (t.name[0] == '\0') throw Error(file + ": plugin name is empty");
  if (t.last_error == nullptr) throw Error(file + ": required slot 'last_error' is null");
  if (t.extends[0] == '\0') {
    throw Error(file + ": 'extends' is empty (NULL for a backend, else the name of the backend "
                       "it extends)");
  }
  if (std::strcmp(t.extends, t.name) == 0) {
    throw Error(file + ": plugin '" + t.name + "' extends itself");
  }
}

// The bits of an ABI enum field as the plugin wrote them. Loading an enum object
// that holds a value outside its enumerators is undefined in C++, so copy the bytes.
template <typename Enum>
int32_t raw_enum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "ABI enums are 32-bit");
  int32_t value = 0;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

void check_kernel(const tsr_kernel_desc& k, int32_t index, const std::string& file) {
  const std::string which = file + ": kernel " + std::to_string(index) +
                            (k.name ? " ('" + std::string(k.name) + "')" : std::string());
  const int32_t op = raw_enum(k.op);
  if (op < 0 || op >= TSR_OP_COUNT) {
    throw Error(which + ": op " + std::to_string(op) + " is not a known op");
  }
  const int32_t dtype = raw_enum(k.dtype);
  if (dtype < 0 || dtype >= TSR_DTYPE_COUNT) {
    throw Error(which + ": dtype " + std::to_string(dtype) + " is not a known dtype");
  }
  if (k.run == nullptr) throw Error(which + ": run is null");
  if (op == TSR_OP_CUSTOM) {
    const char* dot = k.op_name ? std::strchr(k.op_name, '.') : nullptr;
    if (dot == nullptr || dot == k.op_name || !is_lower_identifier(dot + 1)) {
      throw Error(which + ": a custom-op kernel needs op_name '<plugin>.<op>' naming a declared op");
    }
  } else if (k.op_name != nullptr) {
    throw Error(which + ": op_name '" + std::string(k.op_name) + "' is set but op is not TSR_OP_CUSTOM");
  }
}

void check_kernel_list(const tsr_plugin& t, const std::string& file) {
  if (t.kernel_count < 0) {
    throw Error(file + ": kernel_count is " + std::to_string(t.kernel_count));
  }
  if (t.kernel_count > 0 && t.kernels == nullptr) {
    throw Error(file + ": kernel list is null but kernel_count is " +
                std::to_string(t.kernel_count));
  }
  for (int32_t i = 0; i < t.kernel_count; ++i) check_kernel(t.kernels[i], i, file);
}

}  // namespace

void check_plugin_table(const tsr_plugin* table, const std::string& file) {
  if (table == nullptr) {
    throw Error(file + ": entry point '" TSR_PLUGIN_ENTRY_SYMBOL "' returned no plugin table");
  }
  // Only the first two fields are known to exist until both are checked.
  if (table->abi_version != TSR_ABI_VERSION) {
    throw Error(file + ": plugin ABI version " + std::to_string(table->abi_version) +
                " is not supported by this host (expects " + std::to_string(TSR_ABI_VERSION) +
                ")");
  }
  if (table->struct_size < sizeof(tsr_plugin)) {
    throw Error(file + ": plugin table is " + std::to_string(table->struct_size) +
                " bytes, smaller than the " + std::to_string(sizeof(tsr_plugin)) +
                " bytes of ABI version " + std::to_string(TSR_ABI_VERSION));
  }
  if (table->extends == nullptr) {
    check_backend_slots(*table, file);
  } else {
    check_extension_slots(*table, file);
  }
  check_kernel_list(*table, file);
  check_op_decls(*table, file);
}

}  // namespace tessera
