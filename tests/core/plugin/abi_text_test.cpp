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

TEST(FormatBytes, BelowOneKibIsPlainBytes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
}

TEST(FormatBytes, UsesBinaryUnitsWithOneDecimal) {
  EXPECT_EQ(format_bytes(1024), "1.0 KiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bytes(1u << 20), "1.0 MiB");
  EXPECT_EQ(format_bytes(2254857830ull), "2.1 GiB");
  EXPECT_EQ(format_bytes(3ull << 40), "3.0 TiB");
}

TEST(FormatBytes, RoundsUpToTheNextUnitRatherThanPrinting1024) {
  EXPECT_EQ(format_bytes((1u << 20) - 1), "1.0 MiB");
}

}  // namespace
}  // namespace tessera
