// A plugin-wide message slot for last_error(NULL): failures that have no device
// (device_info, device_open, and every kernel of a kernel plugin) leave their text here.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace tessera::kit {

// Thread-safe. The pointer get() returns stays valid until the next set(), which is
// what the ABI promises ("valid until the next call"). One instance per plugin, with
// static storage duration.
class LastError {
 public:
  const char* get() const noexcept;
  // Replaces the message; leaves it empty if the copy cannot be allocated.
  void set(std::string_view message) noexcept;

 private:
  mutable std::mutex mutex_;
  std::string message_;
};

}  // namespace tessera::kit
