// The Vulkan test program's backend, and the validation layer's message count.
#include "vulkan_session.h"

#include <string>

namespace tessera::gpu_test {

const char* program_backend() { return "vulkan"; }

}  // namespace tessera::gpu_test

namespace tessera::vulkan::test {

int64_t validation_messages() {
  const tsr_device_info info = session().plugin->device_info(0);
  const std::string text = info.description;
  const std::string key = "validation on, ";
  const size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + key.size()));
}

}  // namespace tessera::vulkan::test
