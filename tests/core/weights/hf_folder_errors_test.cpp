// HfFolder refusing folders that are incomplete or whose index and shards disagree,
// each with its exact message naming the file at fault.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/weights/hf_folder.h"
#include "core/weights/safetensors_writer.h"
#include "safetensors_test_util.h"

namespace tessera {
namespace {

const std::string kConfig = R"({"hidden_size": 4})";
const std::string kShard1 = "model-00001-of-00002.safetensors";
const std::string kShard2 = "model-00002-of-00002.safetensors";

// A folder with config.json and two shards: a, b in the first; c (and `extra` names) in
// the second. The index is written by each test.
class BrokenFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    test::write_file(folder_.file("config.json"), kConfig);
    write_shard(kShard1, {"a", "b"});
    write_shard(kShard2, {"c"});
  }

  void write_shard(const std::string& name, const std::vector<std::string>& tensors) {
    std::vector<SafetensorsTensor> list;
    for (const std::string& t : tensors) {
      list.push_back({.name = t, .dtype = DType::F32, .shape = {2}, .bytes = bytes_});
    }
    write_safetensors(folder_.file(name), list);
  }

  void write_index(const std::string& weight_map) {
    test::write_file(index(), R"({"metadata": {}, "weight_map": )" + weight_map + "}");
  }

  std::string index() const { return folder_.file("model.safetensors.index.json"); }

  void expect_refused(const std::string& message) {
    test::expect_error_message([&] { HfFolder::open(folder_.path()); }, message);
  }

  test::TempFolder folder_{"broken"};
  std::vector<uint8_t> bytes_ = test::encode(DType::F32, {1, 2});
};

TEST_F(BrokenFolder, ConsistentIndexOpens) {
  write_index(R"({"a": ")" + kShard1 + R"(", "b": ")" + kShard1 + R"(", "c": ")" + kShard2 + R"("})");
  EXPECT_EQ(HfFolder::open(folder_.path())->tensors().size(), 3u);
}

TEST_F(BrokenFolder, MissingConfigJson) {
  std::filesystem::remove(folder_.file("config.json"));
  expect_refused(folder_.path() +
                 ": no config.json in the folder (a Hugging Face model folder needs one)");
}

TEST_F(BrokenFolder, NeitherWeightsFileNorIndex) {
  expect_refused(folder_.path() +
                 ": neither model.safetensors nor model.safetensors.index.json is in the folder");
}

TEST_F(BrokenFolder, FolderThatDoesNotExist) {
  const std::string missing = folder_.file("nowhere");
  test::expect_error_message([&] { HfFolder::open(missing); },
                             missing + ": not a directory (a Hugging Face model folder holds "
                                       "config.json and safetensors files)");
}

TEST_F(BrokenFolder, ConfigJsonThatIsNotJson) {
  test::write_file(folder_.file("config.json"), "{\n  \"hidden_size\": 4,\n}\n");
  expect_refused(folder_.file("config.json") +
                 ": invalid JSON: parse error at line 3, column 1: syntax error while parsing "
                 "object key - unexpected '}'; expected string literal (offset 22)");
}

TEST_F(BrokenFolder, IndexNamingAMissingShard) {
  write_index(R"({"a": ")" + kShard1 + R"(", "b": ")" + kShard1 + R"(", "c": ")" + kShard2 +
              R"(", "d": "model-00003-of-00003.safetensors"})");
  expect_refused(index() +
                 ": tensor 'd' is in shard 'model-00003-of-00003.safetensors', which does not "
                 "exist");
}

TEST_F(BrokenFolder, ShardPathEscapingTheFolder) {
  write_index(R"({"a": "../model-00001-of-00002.safetensors"})");
  expect_refused(index() +
                 ": shard '../model-00001-of-00002.safetensors' of tensor 'a' is not a file "
                 "inside the model folder");
}

TEST_F(BrokenFolder, AbsoluteShardPath) {
  write_index(R"({"a": ")" + folder_.file(kShard1) + R"("})");
  expect_refused(index() + ": shard '" + folder_.file(kShard1) +
                 "' of tensor 'a' is not a file inside the model folder");
}

TEST_F(BrokenFolder, TensorItsShardLacks) {
  write_index(R"({"a": ")" + kShard1 + R"(", "b": ")" + kShard1 + R"(", "c": ")" + kShard1 + R"("})");
  expect_refused(index() + ": tensor 'c' is mapped to shard '" + kShard1 +
                 "', which does not contain it");
}

TEST_F(BrokenFolder, TensorInTwoShards) {
  write_shard(kShard2, {"c", "a"});
  write_index(R"({"a": ")" + kShard1 + R"(", "b": ")" + kShard1 + R"(", "c": ")" + kShard2 + R"("})");
  expect_refused(index() + ": tensor 'a' is in two shards, '" + kShard1 + "' and '" + kShard2 + "'");
}

TEST_F(BrokenFolder, ShardTensorTheIndexDoesNotList) {
  write_index(R"({"a": ")" + kShard1 + R"(", "c": ")" + kShard2 + R"("})");
  expect_refused(index() + ": shard '" + kShard1 +
                 "' holds tensor 'b', which the weight_map does not list");
}

TEST_F(BrokenFolder, IndexWithoutWeightMap) {
  test::write_file(index(), std::string(R"({"metadata": {"total_size": 24}})"));
  expect_refused(index() + ": no 'weight_map'");
}

TEST_F(BrokenFolder, WeightMapEntryThatIsNotAString) {
  write_index(R"({"a": 1})");
  expect_refused(index() + ": 'weight_map' entry 'a' is an integer, not a string");
}

TEST_F(BrokenFolder, IndexListingATensorTwice) {
  write_index(R"({"a": ")" + kShard1 + R"(", "a": ")" + kShard2 + R"("})");
  expect_refused(index() + ": duplicate key 'a' (inside 'weight_map')");
}

TEST_F(BrokenFolder, BrokenShardIsNamedInTheMessage) {
  test::write_file(folder_.file(kShard2), std::vector<uint8_t>{1, 2, 3});
  write_index(R"({"a": ")" + kShard1 + R"(", "b": ")" + kShard1 + R"(", "c": ")" + kShard2 + R"("})");
  expect_refused(folder_.file(kShard2) +
                 ": truncated file: header length needs 8 bytes but only 3 remain (offset 0)");
}

}  // namespace
}  // namespace tessera
