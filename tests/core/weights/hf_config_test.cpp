// flatten_config_json: how each kind of config.json value becomes metadata.
#include "core/weights/hf_config.h"

#include <set>

#include <gtest/gtest.h>

#include "weights_test_util.h"

namespace tessera {
namespace {

const std::string kLabel = "model/config.json";

TEST(HfConfig, NestedObjectsBecomeDottedKeys) {
  const auto meta = flatten_config_json(
      R"({"attn_config": {"alibi_bias_max": 8, "rope": {"theta": 10000.0}}, "n_layers": 2})",
      kLabel);
  ASSERT_EQ(meta.size(), 3u);
  EXPECT_EQ(meta.at("attn_config.alibi_bias_max"), MetaValue{.value = int64_t{8}});
  EXPECT_EQ(meta.at("attn_config.rope.theta"), MetaValue{.value = 10000.0});
  EXPECT_EQ(meta.at("n_layers"), MetaValue{.value = int64_t{2}});
}

TEST(HfConfig, IntegersStayIntegersAndOtherNumbersBecomeDoubles) {
  const auto meta = flatten_config_json(
      R"({"vocab_size": 32000, "offset": -3, "eps": 1e-05, "scale": 2.0, "huge": 18446744073709551615})",
      kLabel);
  EXPECT_EQ(meta.at("vocab_size"), MetaValue{.value = int64_t{32000}});
  EXPECT_EQ(meta.at("offset"), MetaValue{.value = int64_t{-3}});
  EXPECT_EQ(meta.at("eps"), MetaValue{.value = 1e-05});
  EXPECT_EQ(meta.at("scale"), MetaValue{.value = 2.0});  // written as a float: stays one
  EXPECT_EQ(meta.at("huge"), MetaValue{.value = uint64_t{18446744073709551615u}});
}

TEST(HfConfig, BoolsAndStringsKeepTheirKind) {
  const auto meta = flatten_config_json(R"({"tie_word_embeddings": false, "act": "silu"})", kLabel);
  EXPECT_EQ(meta.at("tie_word_embeddings"), MetaValue{.value = false});
  EXPECT_EQ(meta.at("act"), MetaValue{.value = std::string("silu")});
}

TEST(HfConfig, NullIsSkipped) {
  const auto meta =
      flatten_config_json(R"({"rope_scaling": null, "sliding": {"window": null}, "a": 1})", kLabel);
  ASSERT_EQ(meta.size(), 1u);
  EXPECT_EQ(meta.count("a"), 1u);
}

TEST(HfConfig, ArraysBecomeMetaArrays) {
  const auto meta = flatten_config_json(R"({"architectures": ["LlamaForCausalLM"],
                                           "eos_token_id": [1, 2], "mixed": [1, 0.5, true]})",
                                        kLabel);
  EXPECT_EQ(meta.at("architectures").as_array(),
            (MetaArray{MetaValue{.value = std::string("LlamaForCausalLM")}}));
  EXPECT_EQ(meta.at("eos_token_id").as_array(),
            (MetaArray{MetaValue{.value = int64_t{1}}, MetaValue{.value = int64_t{2}}}));
  EXPECT_EQ(meta.at("mixed").as_array(),
            (MetaArray{MetaValue{.value = int64_t{1}}, MetaValue{.value = 0.5},
                       MetaValue{.value = true}}));
}

TEST(HfConfig, ObjectsAndNullsInsideArraysBecomeJsonText) {
  const auto meta = flatten_config_json(R"({"layers": [{"type": "full"}, null, [3]]})", kLabel);
  EXPECT_EQ(meta.at("layers").as_array(),
            (MetaArray{MetaValue{.value = std::string(R"({"type":"full"})")},
                       MetaValue{.value = std::string("null")},
                       MetaValue{.value = MetaArray{MetaValue{.value = int64_t{3}}}}}));
}

TEST(HfConfig, KeysThatFlattenToTheSameNameAreRefused) {
  test::expect_error_message(
      [] { flatten_config_json(R"({"a.b": 1, "a": {"b": 2}})", kLabel); },
      kLabel + ": two entries flatten to the key 'a.b'");
}

TEST(HfConfig, TopLevelMustBeAnObject) {
  test::expect_error_message([] { flatten_config_json("[1]", kLabel); },
                             kLabel + ": holds an array, not a JSON object");
}

// Found by tests/fuzz/hf_config_fuzz: nlohmann reports this with another exception type
// than a syntax error, which escaped as a crash. The message names the key, as nlohmann's
// gives no position.
TEST(HfConfig, NumberBeyondADoubleIsAnError) {
  test::expect_error_message([] { flatten_config_json(R"({"rope_theta": 1e400})", kLabel); },
                             kLabel + ": number 1e400 is out of range at key 'rope_theta'");
}

TEST(HfConfig, NumberBeyondADoubleDeeperNamesTheObjectItIsIn) {
  test::expect_error_message(
      [] { flatten_config_json(R"({"n": 1, "rope_parameters": {"factor": 2, "rope_theta": -1e999}})", kLabel); },
      kLabel + ": number -1e999 is out of range at key 'rope_theta' (inside 'rope_parameters')");
}

TEST(HfConfig, NullsAreSkippedButNamedWhenAsked) {
  std::set<std::string> nulls;
  const auto meta = flatten_config_json(
      R"({"sliding_window": null, "rope_scaling": {"factor": null}, "list": [null], "a": 1})", kLabel, &nulls);
  EXPECT_EQ(meta.size(), 2u);  // a, list
  EXPECT_EQ(nulls, (std::set<std::string>{"rope_scaling.factor", "sliding_window"}));
}

TEST(HfConfig, DuplicateKeysAreRefused) {
  test::expect_error_message(
      [] { flatten_config_json(R"({"rope": {"theta": 1, "theta": 2}})", kLabel); },
      kLabel + ": duplicate key 'theta' (inside 'rope')");
}

}  // namespace
}  // namespace tessera
