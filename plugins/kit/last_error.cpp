// The plugin-wide last_error slot.
#include <tessera/kit/last_error.h>

namespace tessera::kit {

const char* LastError::get() const noexcept {
  std::lock_guard lock(mutex_);
  return message_.c_str();
}

void LastError::set(std::string_view message) noexcept {
  std::lock_guard lock(mutex_);
  try {
    message_.assign(message);
  } catch (...) {
    message_.clear();  // no memory even for the message
  }
}

}  // namespace tessera::kit
