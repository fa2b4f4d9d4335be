// The one exception type of plugin code built with the kit: a failure that carries the
// tsr_status to return at the ABI and the message the plugin's last_error reports.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <tessera/plugin_abi.h>

namespace tessera::kit {

class KernelError : public std::runtime_error {
 public:
  KernelError(tsr_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  tsr_status status() const { return status_; }

 private:
  tsr_status status_;
};

// Throws KernelError(TSR_E_INVALID_ARGUMENT, "<op>: <message>"), e.g.
// "matmul: x has 64 columns but w has 63".
[[noreturn]] void fail(std::string_view op, const std::string& message);

}  // namespace tessera::kit
