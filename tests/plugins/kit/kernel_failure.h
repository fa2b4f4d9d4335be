// The message of the KernelError a kit check throws, for the kit's tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <tessera/kit/kernel_error.h>

namespace tessera::kit::test {

// f()'s KernelError message, or "<no KernelError>" when it returns; every kit check
// fails with TSR_E_INVALID_ARGUMENT.
template <class F>
std::string failure(F&& f) {
  try {
    f();
  } catch (const KernelError& e) {
    EXPECT_EQ(e.status(), TSR_E_INVALID_ARGUMENT);
    return e.what();
  }
  return "<no KernelError>";
}

}  // namespace tessera::kit::test
