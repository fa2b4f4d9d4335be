#include "core/util/format_bytes.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

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

TEST(FormatBytes, HonoursTheNumberOfDecimals) {
  EXPECT_EQ(format_bytes(160.0 * 1024, 2), "160.00 KiB");
  EXPECT_EQ(format_bytes(1024.0 * 1024 - 1, 2), "1.00 MiB");  // never "1024.00 KiB"
}

}  // namespace
}  // namespace tessera
