// HfFolder: model folders written by write_hf_folder (one file or shards) read back
// whole, and folders whose index and files disagree refused with exact messages.
#include "core/weights/hf_folder.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/weights/safetensors_writer.h"
#include "safetensors_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

const std::string kConfig = R"({"model_type": "llama", "hidden_size": 8, "rms_norm_eps": 1e-05})";

// Four tensors of 16 bytes each, in three dtypes; names out of order on purpose.
struct FourTensors {
  std::vector<uint8_t> norm = test::encode(DType::F32, {1, 2, 3, 4});
  std::vector<uint8_t> embed = test::encode(DType::F16, {0.5f, -0.5f, 1, -1, 2, -2, 4, -4});
  std::vector<uint8_t> head = test::encode(DType::BF16, {8, 7, 6, 5, 4, 3, 2, 1});
  std::vector<uint8_t> bias = test::encode(DType::F32, {-1, -2, -3, -4});

  std::vector<SafetensorsTensor> list() const {
    return {{.name = "norm.weight", .dtype = DType::F32, .shape = {4}, .bytes = norm},
            {.name = "embed.weight", .dtype = DType::F16, .shape = {2, 4}, .bytes = embed},
            {.name = "head.weight", .dtype = DType::BF16, .shape = {4, 2}, .bytes = head},
            {.name = "bias", .dtype = DType::F32, .shape = {4}, .bytes = bias}};
  }
};

std::vector<std::string> names_of(const WeightFile& file) {
  std::vector<std::string> names;
  for (const TensorView& t : file.tensors()) names.push_back(t.name);
  return names;
}

std::vector<float> values_of(const WeightFile& file, const std::string& name) {
  const TensorView* t = file.find_tensor(name);
  EXPECT_NE(t, nullptr) << name;
  return t ? test::decode(t->dtype, t->data, t->n_elements()) : std::vector<float>{};
}

// The values above are exact in their dtypes, so they compare equal after the trip.
void expect_four_tensors(const WeightFile& file) {
  EXPECT_EQ(names_of(file),
            (std::vector<std::string>{"bias", "embed.weight", "head.weight", "norm.weight"}));
  EXPECT_EQ(values_of(file, "bias"), (std::vector<float>{-1, -2, -3, -4}));
  EXPECT_EQ(values_of(file, "embed.weight"), (std::vector<float>{0.5f, -0.5f, 1, -1, 2, -2, 4, -4}));
  EXPECT_EQ(values_of(file, "head.weight"), (std::vector<float>{8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(values_of(file, "norm.weight"), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(file.find_tensor("embed.weight")->shape, (std::vector<int64_t>{2, 4}));
}

std::string read_text(const std::string& path) {
  const std::vector<uint8_t> bytes = test::read_bytes(path);
  return {bytes.begin(), bytes.end()};
}

TEST(HfFolder, SingleFileFolderReadsBackEveryTensorAndTheConfig) {
  const test::TempFolder folder("single");
  const FourTensors tensors;
  write_hf_folder(folder.path(), kConfig, tensors.list(), 64);
  EXPECT_TRUE(fs::exists(folder.file("model.safetensors")));
  EXPECT_FALSE(fs::exists(folder.file("model.safetensors.index.json")));
  EXPECT_EQ(read_text(folder.file("config.json")), kConfig);

  const auto hf = HfFolder::open(folder.path());
  EXPECT_EQ(hf->format(), "hf");
  EXPECT_EQ(hf->path(), folder.path());
  EXPECT_EQ(hf->files().size(), 1u);
  expect_four_tensors(*hf);
  EXPECT_EQ(hf->find_meta("model_type")->as_string(), "llama");
  EXPECT_EQ(hf->find_meta("hidden_size")->as_int(), 8);
}

TEST(HfFolder, ShardedFolderReadsBackEveryTensorSortedByName) {
  const test::TempFolder folder("sharded");
  const FourTensors tensors;
  write_hf_folder(folder.path(), kConfig, tensors.list(), 32);  // two tensors per shard
  const auto hf = HfFolder::open(folder.path());
  ASSERT_EQ(hf->files().size(), 2u);
  EXPECT_EQ(hf->files()[0]->path(), folder.file("model-00001-of-00002.safetensors"));
  EXPECT_EQ(names_of(*hf->files()[0]), (std::vector<std::string>{"embed.weight", "norm.weight"}));
  EXPECT_EQ(hf->files()[1]->path(), folder.file("model-00002-of-00002.safetensors"));
  EXPECT_EQ(names_of(*hf->files()[1]), (std::vector<std::string>{"bias", "head.weight"}));
  expect_four_tensors(*hf);
}

TEST(HfFolder, IndexListsTheTotalSizeAndEveryTensor) {
  const test::TempFolder folder("index");
  const FourTensors tensors;
  write_hf_folder(folder.path(), kConfig, tensors.list(), 32);
  EXPECT_FALSE(fs::exists(folder.file("model.safetensors")));
  EXPECT_EQ(read_text(folder.file("model.safetensors.index.json")),
            R"({
  "metadata": {
    "total_size": 64
  },
  "weight_map": {
    "bias": "model-00002-of-00002.safetensors",
    "embed.weight": "model-00001-of-00002.safetensors",
    "head.weight": "model-00002-of-00002.safetensors",
    "norm.weight": "model-00001-of-00002.safetensors"
  }
}
)");
}

TEST(HfFolder, TensorLargerThanTheShardLimitFillsAShardAlone) {
  const test::TempFolder folder("big");
  const FourTensors tensors;
  write_hf_folder(folder.path(), kConfig, tensors.list(), 10);  // every tensor is 16 bytes
  const auto hf = HfFolder::open(folder.path());
  ASSERT_EQ(hf->files().size(), 4u);
  EXPECT_EQ(hf->files()[3]->path(), folder.file("model-00004-of-00004.safetensors"));
  expect_four_tensors(*hf);
}

TEST(HfFolder, WritingOneFileRemovesTheIndexOfAnEarlierShardedWrite) {
  const test::TempFolder folder("rewrite");
  const FourTensors tensors;
  write_hf_folder(folder.path(), kConfig, tensors.list(), 32);
  write_hf_folder(folder.path(), kConfig, tensors.list(), 1000);
  EXPECT_FALSE(fs::exists(folder.file("model.safetensors.index.json")));
  EXPECT_EQ(HfFolder::open(folder.path())->files().size(), 1u);
}

TEST(HfFolder, WriterRefusesAConfigThatIsNotAnObjectAndWritesNothing) {
  const test::TempFolder folder("badconfig");
  test::expect_error_message(
      [&] { write_hf_folder(folder.path(), "[1, 2]", {}, 100); },
      folder.file("config.json") + ": cannot write an array as config.json (it must be a JSON "
                                   "object)");
  EXPECT_TRUE(fs::is_empty(folder.path()));
}

}  // namespace
}  // namespace tessera
