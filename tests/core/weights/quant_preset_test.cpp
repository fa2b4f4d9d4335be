// Which dtype each matrix gets under a quantisation preset: the base dtype, the output
// projection, the _M layers of attn_v and ffn_down, and the fallback of rows that are not
// whole blocks.
#include "core/weights/quant_preset.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

QuantPreset preset(const char* name) {
  QuantPreset p;
  EXPECT_TRUE(quant_preset_from_name(name, &p)) << name;
  return p;
}

DType dtype_of(const char* preset_name, const std::string& tensor, int64_t row = 4096, int64_t layers = 32) {
  return preset_dtype(preset(preset_name), {tensor, row, layers});
}

TEST(QuantPreset, ParsesEitherCaseAndRefusesUnknownNames) {
  QuantPreset p;
  ASSERT_TRUE(quant_preset_from_name("Q4_K_M", &p));
  EXPECT_EQ(p.name, "q4_k_m");
  EXPECT_EQ(p.base, DType::Q4_K);
  EXPECT_EQ(p.mix, QuantMix::Medium);
  EXPECT_EQ(p.file_type, 15u);
  EXPECT_FALSE(quant_preset_from_name("q4_k_x", &p));
  EXPECT_FALSE(quant_preset_from_name("i32", &p));
  EXPECT_NE(quant_preset_names().find("q4_0, q4_1, q5_0"), std::string::npos);
}

TEST(QuantPreset, Q4KMGivesTheOutputAndEveryThirdMiddleLayerSixBits) {
  EXPECT_EQ(dtype_of("q4_k_m", "output.weight"), DType::Q6_K);
  EXPECT_EQ(dtype_of("q4_k_m", "token_embd.weight"), DType::Q4_K);
  EXPECT_EQ(dtype_of("q4_k_m", "blk.0.attn_q.weight"), DType::Q4_K);
  // 32 layers: 0-3 and 28-31 are the first and last eighth; between them 6, 9, 12, ...
  for (const int layer : {0, 3, 6, 9, 27, 28, 31}) {
    EXPECT_EQ(dtype_of("q4_k_m", "blk." + std::to_string(layer) + ".ffn_down.weight"), DType::Q6_K) << layer;
    EXPECT_EQ(dtype_of("q4_k_m", "blk." + std::to_string(layer) + ".attn_v.weight"), DType::Q6_K) << layer;
  }
  for (const int layer : {4, 5, 7, 8, 26}) {
    EXPECT_EQ(dtype_of("q4_k_m", "blk." + std::to_string(layer) + ".ffn_down.weight"), DType::Q4_K) << layer;
  }
}

TEST(QuantPreset, LinearPresetsKeepTheBaseButGiveTheOutputSixBits) {
  EXPECT_EQ(dtype_of("q4_0", "blk.0.ffn_down.weight"), DType::Q4_0);
  EXPECT_EQ(dtype_of("q4_0", "output.weight"), DType::Q6_K);
  EXPECT_EQ(dtype_of("q8_0", "output.weight"), DType::Q8_0);
  EXPECT_EQ(dtype_of("f16", "output.weight"), DType::F16);
}

TEST(QuantPreset, RowsThatAreNotWholeSuperBlocksFallBack) {
  // 576 = 18 blocks of 32 but 2.25 super-blocks of 256.
  EXPECT_EQ(dtype_of("q4_k_m", "blk.5.attn_q.weight", 576), DType::Q5_0);
  EXPECT_EQ(dtype_of("q4_k_m", "output.weight", 576), DType::Q8_0);
  EXPECT_EQ(dtype_of("q5_k_m", "blk.5.attn_q.weight", 576), DType::Q5_1);
  EXPECT_EQ(dtype_of("q2_k", "blk.5.attn_q.weight", 576), DType::IQ4_NL);
  EXPECT_EQ(dtype_of("q4_0", "blk.5.attn_q.weight", 100), DType::F16);
}

TEST(QuantPreset, CountsLayersFromBlockNames) {
  EXPECT_EQ(layer_count_of({"token_embd.weight", "blk.0.attn_q.weight", "blk.11.ffn_up.weight", "blkx.40.a"}), 12);
  EXPECT_EQ(layer_count_of({"output.weight"}), 0);
}

}  // namespace
}  // namespace tessera
