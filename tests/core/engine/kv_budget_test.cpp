// --kv-mem: bytes with units, fractions of the device memory, and the blocks they hold.
#include "core/engine/kv_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/error.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(ParseKvBudget, UnitsArePowersOf1024) {
  EXPECT_EQ(parse_kv_budget("512M").value, 512.0 * 1024 * 1024);
  EXPECT_EQ(parse_kv_budget("2G").value, 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_kv_budget("1.5GiB").value, 1.5 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_kv_budget("64kb").value, 64.0 * 1024);
  EXPECT_EQ(parse_kv_budget("1048576").value, 1048576.0);
  EXPECT_EQ(parse_kv_budget("512M").kind, KvBudget::Kind::Bytes);
}

TEST(ParseKvBudget, NumbersBelowOneAndPercentagesAreFractions) {
  EXPECT_EQ(parse_kv_budget("0.5").kind, KvBudget::Kind::DeviceFraction);
  EXPECT_EQ(parse_kv_budget("0.5").value, 0.5);
  EXPECT_EQ(parse_kv_budget("100%").value, 1.0);
  EXPECT_EQ(parse_kv_budget("25%").value, 0.25);
  EXPECT_EQ(parse_kv_budget("25%").kind, KvBudget::Kind::DeviceFraction);
}

TEST(ParseKvBudget, NonsenseIsRefusedWithTheAcceptedForms) {
  EXPECT_THAT([] { parse_kv_budget("2X"); },
              ThrowsMessage<Error>("KV memory '2X': unknown unit 'X'; give bytes (512M, 2G, 1.5GiB, 1048576) or "
                                   "a fraction of the device memory (0.5, 50%)"));
  EXPECT_THAT([] { parse_kv_budget("-1G"); }, ThrowsMessage<Error>(HasSubstr("not a positive number")));
  EXPECT_THAT([] { parse_kv_budget(""); }, ThrowsMessage<Error>(HasSubstr("empty")));
  EXPECT_THAT([] { parse_kv_budget("150%"); }, ThrowsMessage<Error>(HasSubstr("a percentage above 100")));
  EXPECT_THAT([] { parse_kv_budget("1.5"); }, ThrowsMessage<Error>(HasSubstr("not a whole number of bytes")));
}

TEST(ParseKvBudget, BareOneIsAmbiguous) {
  EXPECT_THAT([] { parse_kv_budget("1"); },
              ThrowsMessage<Error>("KV memory '1': ambiguous: write 100% for all of the device memory, or 1B for "
                                   "bytes; give bytes (512M, 2G, 1.5GiB, 1048576) or a fraction of the device memory "
                                   "(0.5, 50%)"));
  EXPECT_EQ(parse_kv_budget("1B").value, 1.0);
}

KvBudgetContext context() {
  KvBudgetContext c;
  c.block_size = 16;
  c.bytes_per_token = 1024;  // a block takes 16 KiB
  c.device_memory_bytes = 1 << 30;
  c.weight_bytes = 512u << 20;
  c.default_tokens = 100;
  return c;
}

TEST(ResolveKvBlocks, BytesRoundDownToWholeBlocks) {
  EXPECT_EQ(resolve_kv_blocks(KvBudget::bytes(1 << 20), context()), 64);
  EXPECT_EQ(resolve_kv_blocks(KvBudget::bytes((1 << 20) + 16383), context()), 64);
}

TEST(ResolveKvBlocks, AFractionIsOfTheMemoryLeftAfterTheWeights) {
  // Half of the 512 MiB left: 256 MiB / 16 KiB.
  EXPECT_EQ(resolve_kv_blocks(KvBudget::device_fraction(0.5), context()), 16384);
}

TEST(ResolveKvBlocks, TokensRoundUpAndZeroMeansTheDefault) {
  EXPECT_EQ(resolve_kv_blocks(KvBudget::tokens(17), context()), 2);
  EXPECT_EQ(resolve_kv_blocks(KvBudget::tokens(0), context()), 7);
}

TEST(ResolveKvBlocks, ABudgetBelowOneBlockSaysWhatABlockTakes) {
  EXPECT_THAT([] { resolve_kv_blocks(KvBudget::bytes(1000), context()); },
              ThrowsMessage<Error>("KV memory of 1000 B holds no block: one block of 16 tokens takes 16.0 KiB "
                                   "(raise --kv-mem)"));
}

TEST(ResolveKvBlocks, AFractionOfUnknownMemoryIsRefused) {
  KvBudgetContext c = context();
  c.device_memory_bytes = 0;
  EXPECT_THAT([&] { resolve_kv_blocks(KvBudget::device_fraction(0.5), c); },
              ThrowsMessage<Error>(HasSubstr("which this device does not report; give bytes")));
}

}  // namespace
}  // namespace tessera
