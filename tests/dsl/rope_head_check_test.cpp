// A rope must rotate the heads the attention it feeds uses: q rotated with the KV
// heads' count (or k with the query heads') divides the columns evenly into heads of
// another size, so only following the rope to its attention catches it.
#include <gtest/gtest.h>

#include "graph_query.h"

namespace tessera::test {
namespace {

// 4 query heads and 2 KV heads of 4 columns; `q_heads` and `k_heads` are the ropes'.
std::string model(const std::string& q_heads, const std::string& k_heads, const std::string& q_extra = "") {
  return R"(model tiny
hparams { d = 16  v = 8  heads = 4  kv = 2 }
weights {
  emb [v, d]    = "emb"
  wq [16, d]    = "wq"
  wk [8, d]     = "wk"
}
forward {
  h = embed(emb)
  q = rope(linear(h, wq), heads: )" + q_heads + R"()
  k = rope(linear(h, wk), heads: )" + k_heads + R"()
  a = attention(q)" + q_extra + R"(, k, k, heads: heads, kv_heads: kv)
  logits = linear(outputs(a), wq)
}
)";
}

std::string diagnostic(const std::string& source) {
  try {
    compile_text(source);
  } catch (const dsl::DslError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(RopeHeads, TheAttentionsHeadsAreAccepted) {
  EXPECT_EQ(diagnostic(model("heads", "kv")), "accepted");
}

TEST(RopeHeads, QueriesRotatedWithTheKvHeadsAreRefused) {
  EXPECT_EQ(diagnostic(model("kv", "kv")),
            "test.tsr:10:3: error: rope: heads: 2 splits the 16 columns of 'q' into heads of 8, but the attention it feeds "
            "has heads of 4 (heads: 4); rope must rotate the heads attention uses\n"
            "  q = rope(linear(h, wq), heads: kv)\n"
            "  ^\n");
}

TEST(RopeHeads, KeysRotatedWithTheQueryHeadsAreRefused) {
  EXPECT_EQ(diagnostic(model("heads", "heads")),
            "test.tsr:11:3: error: rope: heads: 4 splits the 8 columns of 'k' into heads of 2, but the KV cache it is "
            "written to has heads of 4 (kv_heads: 2); rope must rotate the heads attention uses\n"
            "  k = rope(linear(h, wk), heads: heads)\n"
            "  ^\n");
}

TEST(RopeHeads, AScaledQueryIsFollowedToItsAttention) {
  EXPECT_EQ(diagnostic(model("kv", "kv", " * 0.5")).rfind("test.tsr:10:3: error: rope: heads: 2 splits the 16 columns of 'q' ", 0),
            0u);
  EXPECT_EQ(diagnostic(model("heads", "kv", " * 0.5")), "accepted");
}

// In a block the statement serves every call: the message names the tensor and layer.
TEST(RopeHeads, ARopeInABlockNamesTheCallersTensor) {
  EXPECT_EQ(diagnostic(R"(model tiny
hparams { d = 16  v = 8  heads = 4  kv = 2 }
weights {
  emb [v, d] = "emb"
  layer i in 0 .. 2 {
    wq [16, d] = "blk.{i}.wq"
    wk [8, d]  = "blk.{i}.wk"
  }
}
block rotate(t, n) {
  return rope(t, heads: n)
}
forward {
  x = embed(emb)
  for i in 0 .. 2 {
    q = rotate(linear(x, wq[i]), heads)
    k = rotate(linear(x, wk[i]), heads)
    x = x + attention(q, k, k, heads: heads, kv_heads: kv)
  }
  logits = linear(outputs(x), emb)
}
)"),
            "test.tsr:11:3: error: rope: heads: 4 splits the 8 columns of 'blk.0.k' into heads of 2, but the KV cache "
            "it is written to has heads of 4 (kv_heads: 2); rope must rotate the heads attention uses\n"
            "  return rope(t, heads: n)\n"
            "  ^\n");
}

}  // namespace
}  // namespace tessera::test
