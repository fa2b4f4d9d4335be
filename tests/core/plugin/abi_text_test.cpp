#include "core/plugin/abi_text.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(StatusText, NamesEveryAbiStatus) {
  EXPECT_EQ(status_text(TSR_OK), "ok");
  EXPECT_EQ(status_text(TSR_E_INVALID_ARGUMENT), "invalid argument");
  EXPECT_EQ(status_text(TSR_E_OUT_OF_MEMORY), "out of memory");
  EXPECT_EQ(status_text(TSR_E_UNSUPPORTED), "unsupported");
  EXPECT_EQ(status_text(TSR_E_DEVICE), "device error");
  EXPECT_EQ(status_text(TSR_E_INTERNAL), "internal error");
}

TEST(StatusText, UnknownCodeShowsItsNumber) { EXPECT_EQ(status_text(42), "status 42"); }




}  // namespace
}  // namespace tessera
