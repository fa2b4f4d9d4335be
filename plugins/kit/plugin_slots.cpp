// The argument checks and the table skeleton of plugin_slots.h.
#include <tessera/kit/plugin_slots.h>

#include <string>

namespace tessera::kit {
namespace {

[[noreturn]] void invalid(const std::string& message) { throw KernelError(TSR_E_INVALID_ARGUMENT, message); }

}  // namespace

void check_device_index(std::string_view backend, int32_t index, int32_t count) {
  if (index >= 0 && index < count) return;
  invalid("no " + std::string(backend) + " device " + std::to_string(index) +
          (count == 1 ? " (there is 1)" : " (there are " + std::to_string(count) + ")"));
}

void check_not_null(const void* pointer, std::string_view what) {
  if (pointer == nullptr) invalid(std::string(what) + " is null");
}

void check_copy_range(const void* host, uint64_t offset, uint64_t size, uint64_t capacity) {
  if (host == nullptr && size != 0) invalid("host pointer is null");
  if (offset > capacity || size > capacity - offset) {
    invalid(std::to_string(size) + " bytes at offset " + std::to_string(offset) + " overrun a buffer of " +
            std::to_string(capacity) + " bytes");
  }
}

tsr_plugin backend_table(const char* name, const char* version, const tsr_kernel_desc* kernels,
                         int32_t kernel_count) {
  tsr_plugin p{};
  p.abi_version = TSR_ABI_VERSION;
  p.struct_size = sizeof(tsr_plugin);
  p.name = name;
  p.version = version;
  p.kernel_count = kernel_count;
  p.kernels = kernels;
  return p;
}

}  // namespace tessera::kit
