// PrefixIndex and chain_hash: keys that stand for the whole prefix, exact lookups
// that turn collisions into misses, one block per key.
#include "core/kv/prefix_index.h"

#include <gtest/gtest.h>

#include <vector>

namespace tessera {
namespace {

const std::vector<int32_t> kAbc = {1, 2, 3};
const std::vector<int32_t> kAbd = {1, 2, 4};

TEST(ChainHash, DependsOnTheTokensAndTheirOrder) {
  EXPECT_EQ(chain_hash(kPrefixRoot, kAbc), chain_hash(kPrefixRoot, std::vector<int32_t>{1, 2, 3}));
  EXPECT_NE(chain_hash(kPrefixRoot, kAbc), chain_hash(kPrefixRoot, kAbd));
  EXPECT_NE(chain_hash(kPrefixRoot, kAbc), chain_hash(kPrefixRoot, std::vector<int32_t>{3, 2, 1}));
}

TEST(ChainHash, DependsOnThePrefixBefore) {
  const uint64_t after_abc = chain_hash(chain_hash(kPrefixRoot, kAbc), kAbc);
  const uint64_t after_abd = chain_hash(chain_hash(kPrefixRoot, kAbd), kAbc);
  EXPECT_NE(after_abc, after_abd);
}

TEST(PrefixIndex, FindsTheBlockInsertedUnderAKey) {
  PrefixIndex index(4);
  const uint64_t key = chain_hash(kPrefixRoot, kAbc);
  ASSERT_TRUE(index.insert(2, key, kPrefixRoot, kAbc));
  EXPECT_EQ(index.find(key, kPrefixRoot, kAbc), 2);
  EXPECT_TRUE(index.has_block(2));
  EXPECT_EQ(index.size(), 1);
}

TEST(PrefixIndex, ACollidingKeyWithOtherTokensIsAMiss) {
  PrefixIndex index(4);
  const uint64_t key = chain_hash(kPrefixRoot, kAbc);
  index.insert(0, key, kPrefixRoot, kAbc);
  EXPECT_EQ(index.find(key, kPrefixRoot, kAbd), std::nullopt);  // same key, other tokens
  EXPECT_EQ(index.find(key, 12345, kAbc), std::nullopt);        // same key, other parent
}

TEST(PrefixIndex, KeepsTheFirstBlockForAKey) {
  PrefixIndex index(4);
  const uint64_t key = chain_hash(kPrefixRoot, kAbc);
  EXPECT_TRUE(index.insert(0, key, kPrefixRoot, kAbc));
  EXPECT_FALSE(index.insert(1, key, kPrefixRoot, kAbc));
  EXPECT_FALSE(index.has_block(1));
  EXPECT_FALSE(index.insert(0, chain_hash(kPrefixRoot, kAbd), kPrefixRoot, kAbd));  // 0 has a key
  EXPECT_EQ(index.find(key, kPrefixRoot, kAbc), 0);
}

TEST(PrefixIndex, EraseForgetsTheBlock) {
  PrefixIndex index(4);
  const uint64_t key = chain_hash(kPrefixRoot, kAbc);
  index.insert(3, key, kPrefixRoot, kAbc);
  index.erase(3);
  index.erase(3);  // no-op
  EXPECT_EQ(index.find(key, kPrefixRoot, kAbc), std::nullopt);
  EXPECT_EQ(index.size(), 0);
  EXPECT_TRUE(index.insert(1, key, kPrefixRoot, kAbc));
}

}  // namespace
}  // namespace tessera
