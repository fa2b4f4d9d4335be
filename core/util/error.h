// The one exception type of the Tessera core: every failure inside the library is
// a tessera::Error whose message says what failed, where, and why.
#pragma once

#include <stdexcept>
#include <string>

namespace tessera {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tessera
