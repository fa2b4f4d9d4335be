// Corrupted copies of stories260K.gguf, each refused with a message that names the
// file, says what is wrong and where. Run under the sanitizers, these also show the
// reader never reads outside the mapping.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_types.h"
#include "core/weights/weight_file.h"
#include "support/testdata.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

using test::patch;

const std::vector<uint8_t>& original() {
  static const std::vector<uint8_t> bytes =
      test::read_bytes(test::testdata_path("stories260K/stories260K.gguf"));
  return bytes;
}

// File offset of the n_dims field of tensor `name`'s info (just after its name).
uint64_t tensor_info_at(const std::vector<uint8_t>& bytes, const std::string& name) {
  std::string needle(8, '\0');
  const uint64_t length = name.size();
  std::memcpy(needle.data(), &length, 8);
  needle += name;
  const auto it = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
  EXPECT_NE(it, bytes.end()) << name;
  return static_cast<uint64_t>(it - bytes.begin()) + needle.size();
}

// Offsets inside one 2-D tensor info: n_dims (u32), ne0, ne1 (u64), type (u32), offset (u64).
struct InfoFields {
  uint64_t n_dims, ne0, ne1, type, offset;
};
InfoFields info_fields(const std::string& name) {
  const uint64_t at = tensor_info_at(original(), name);
  return {at, at + 4, at + 12, at + 20, at + 24};
}

struct Corruption {
  std::string name;
  std::function<void(std::vector<uint8_t>&)> apply;
  std::vector<std::string> expected;  // key parts of the message
};

void PrintTo(const Corruption& c, std::ostream* os) { *os << c.name; }

class GgufCorruption : public ::testing::TestWithParam<Corruption> {};

TEST_P(GgufCorruption, IsRefusedWithItsMessage) {
  std::vector<uint8_t> bytes = original();
  GetParam().apply(bytes);
  const std::string path = test::write_temp("corrupt.gguf", bytes);
  std::vector<std::string> parts = GetParam().expected;
  parts.push_back(path + ": ");
  test::expect_error([&] { GgufFile::open(path); }, parts);
}

auto truncate_to(uint64_t size) {
  return [size](std::vector<uint8_t>& b) { b.resize(size); };
}

// Inserts, as the first key, "deep": arrays nested `depth` levels around an empty
// uint8 array, and bumps the key count.
void insert_nested_key(std::vector<uint8_t>& b, int depth) {
  std::vector<uint8_t> kv;
  auto put = [&kv](auto v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    kv.insert(kv.end(), p, p + sizeof v);
  };
  put(uint64_t{4});
  for (char ch : std::string("deep")) kv.push_back(static_cast<uint8_t>(ch));
  put(uint32_t{gguf::kArray});
  for (int i = 0; i < depth; ++i) {
    put(uint32_t{gguf::kArray});
    put(uint64_t{1});
  }
  put(uint32_t{gguf::kUint8});
  put(uint64_t{0});
  b.insert(b.begin() + 24, kv.begin(), kv.end());
  patch(b, 16, test::peek<uint64_t>(b, 16) + 1);
}

// Renames the key `from` to `to` (same length) in place.
void rename_key(std::vector<uint8_t>& b, const std::string& from, const std::string& to) {
  const uint64_t end = tensor_info_at(b, from);
  std::memcpy(b.data() + end - from.size(), to.data(), to.size());
}

uint64_t read_u64(const std::vector<uint8_t>& b, uint64_t at) {
  uint64_t v = 0;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

std::vector<Corruption> corruptions() {
  const InfoFields q = info_fields("blk.0.attn_q.weight");
  const InfoFields down = info_fields("blk.0.ffn_down.weight");
  const InfoFields last = info_fields("blk.4.ffn_norm.weight");  // 1-D: offset at n_dims + 16
  const uint64_t last_offset = last.n_dims + 4 + 8 + 4;
  return {
      {"Empty",
       truncate_to(0),
       {"truncated file: magic needs 4 bytes but only 0 remain (offset 0)"}},
      {"TruncatedInVersion",
       truncate_to(6),
       {"truncated file: version needs 4 bytes", "(offset 4)"}},
      {"TruncatedInCounts",
       truncate_to(20),
       {"truncated file: metadata count needs 8 bytes but only 4 remain (offset 16)"}},
      {"TruncatedInFirstKey",
       truncate_to(40),
       {"header claims 19 metadata entries, more than the 16 bytes"}},
      {"TruncatedInTokenArray",
       truncate_to(3000),
       {"value of key 'tokenizer.ggml.tokens': array of 512 string values cannot fit"}},
      {"TruncatedInTokenString", truncate_to(5000), {"value of key 'tokenizer.ggml.tokens'"}},
      {"TruncatedInTensorInfos",
       truncate_to(q.type),
       {"truncated file: type of tensor 'blk.0.attn_q.weight' needs 4 bytes"}},
      {"TruncatedInData",
       truncate_to(original().size() - 100),
       {"tensor 'blk.4.ffn_norm.weight' data [offset 1185120, 256 bytes] runs past the end of the "
        "file (1185276 bytes)",
        "(offset " + std::to_string(last_offset) + ")"}},
      {"BadMagic",
       [](auto& b) { b[0] = 'g'; },
       {"not a GGUF file: magic is 'gGUF', expected 'GGUF' (offset 0)"}},
      {"Version1",
       [](auto& b) { patch(b, 4, uint32_t{1}); },
       {"GGUF version 1 is not supported", "(offset 4)"}},
      {"Version4",
       [](auto& b) { patch(b, 4, uint32_t{4}); },
       {"GGUF version 4 is not supported (only versions 2 and 3)"}},
      {"BigEndian",
       [](auto& b) { patch(b, 4, uint32_t{0x03000000}); },
       {"big-endian GGUF files are not supported"}},
      {"LyingTensorCount",
       [](auto& b) { patch(b, 8, uint64_t{1} << 40); },
       {"header claims 1099511627776 tensors, more than the", "(offset 8)"}},
      {"TensorCountOneTooMany",
       [](auto& b) { patch(b, 8, uint64_t{49}); },
       {"tensor #48 has an empty name"}},
      {"LyingKeyCount",
       [](auto& b) { patch(b, 16, uint64_t{1} << 50); },
       {"header claims 1125899906842624 metadata entries"}},
      {"LyingStringLength",
       [](auto& b) { patch(b, 24, uint64_t{1} << 40); },
       {"key #0: string length 1099511627776 runs past the end of the file", "(offset 24)"}},
      {"UnknownValueType",
       [](auto& b) { patch(b, 24 + 8 + 21, uint32_t{13}); },
       {"key 'tokenizer.ggml.tokens' has unknown value type 13 (offset 53)"}},
      {"UnknownArrayElementType",
       [](auto& b) { patch(b, 24 + 8 + 21 + 4, uint32_t{77}); },
       {"value of key 'tokenizer.ggml.tokens': array has unknown element type 77 (offset 57)"}},
      {"LyingArrayCount",
       [](auto& b) { patch(b, 24 + 8 + 21 + 8, uint64_t{1} << 60); },
       {"array of 1152921504606846976 string values cannot fit", "(offset 61)"}},
      {"DuplicateKey",
       [](auto& b) { std::memcpy(b.data() + 24 + 8 + 15, "scores", 6); },  // tokens -> scores
       {"duplicate key 'tokenizer.ggml.scores'"}},
      {"UnsupportedTensorType",
       [q](auto& b) { patch(b, q.type, uint32_t{16}); },
       {"tensor 'blk.0.attn_q.weight' has type iq2_xxs (16), which is not supported",
        "(offset " + std::to_string(q.type) + ")"}},
      {"UnknownTensorType",
       [q](auto& b) { patch(b, q.type, uint32_t{99}); },
       {"has type unknown (99)"}},
      {"TooManyDims",
       [q](auto& b) { patch(b, q.n_dims, uint32_t{5}); },
       {"tensor 'blk.0.attn_q.weight' has 5 dimensions (at most 4)",
        "(offset " + std::to_string(q.n_dims) + ")"}},
      {"ZeroDim",
       [q](auto& b) { patch(b, q.ne1, uint64_t{0}); },
       {"tensor 'blk.0.attn_q.weight' dimension 1 is 0 (must be positive)"}},
      {"NegativeDim",
       [q](auto& b) { patch(b, q.ne0, uint64_t(-64)); },
       {"dimension 0 is -64 (must be positive)"}},
      {"ElementCountOverflow",
       [q](auto& b) { patch(b, q.ne0, uint64_t{1} << 62); },
       {"tensor 'blk.0.attn_q.weight' element count overflows 64 bits"}},
      {"Q8InnermostNotWholeBlocks",
       [down](auto& b) { patch(b, down.type, uint32_t{8}); },
       {"tensor 'blk.0.ffn_down.weight' innermost dimension 172 is not a multiple of the q8_0 "
        "block size 32"}},
      {"MisalignedOffset",
       [q](auto& b) { patch(b, q.offset, uint64_t{262401}); },
       {"tensor 'blk.0.attn_q.weight' data offset 262401 is not a multiple of the alignment 32"}},
      {"ExtentPastEnd",
       [q](auto& b) { patch(b, q.offset, uint64_t{1171200}); },
       {"tensor 'blk.0.attn_q.weight' data [offset 1185376, 16384 bytes] runs past the end of the "
        "file (1185376 bytes)"}},
      {"OffsetWrapsAround",
       [q](auto& b) { patch(b, q.offset, ~uint64_t{31}); },
       {"tensor 'blk.0.attn_q.weight' data offset 18446744073709551584 runs past the end of the "
        "file (1185376 bytes)"}},
      {"DuplicateTensorName",
       [](auto& b) {
         const uint64_t name_end = tensor_info_at(b, "blk.0.attn_k.weight");
         std::memcpy(b.data() + name_end - 13, "attn_q",
                     6);  // "blk.0.attn_k.weight": "attn_k" at 6
       },
       {"duplicate tensor name 'blk.0.attn_q.weight'"}},
      {"AlignmentNotPowerOfTwo",
       [](auto& b) { rename_key(b, "llama.block_count", "general.alignment"); },
       {"general.alignment must be a power of two, found 5"}},
      {"AlignmentNotUint32",
       [](auto& b) {
         rename_key(b, "llama.block_count", "general.alignment");
         patch(b, tensor_info_at(b, "general.alignment"), uint32_t{gguf::kInt32});
       },
       {"general.alignment must be a uint32, found int32"}},
      {"OverlappingTensors",
       [q](auto& b) { patch(b, info_fields("blk.0.attn_k.weight").offset, read_u64(original(), q.offset)); },
       {"tensor 'blk.0.attn_k.weight' data [", "overlaps tensor 'blk.0.attn_q.weight' [",
        "a tensor's type, shape or offset is wrong"}},
      {"TypeChangedToF16",  // half the bytes: a gap before the next tensor
       [q](auto& b) { patch(b, q.type, uint32_t{1}); },
       {"tensor 'blk.0.attn_k.weight' data [", "leaves a gap of 8192 bytes after tensor 'blk.0.attn_q.weight' ["}},
      {"LastTensorTypeChangedToF16",  // its second half of the data is left over
       [last](auto& b) { patch(b, last.n_dims + 4 + 8, uint32_t{1}); },
       {"the file has 128 bytes after the data of its last tensor 'blk.4.ffn_norm.weight'"}},
      {"ArraysNestedTooDeep",
       [](auto& b) { insert_nested_key(b, 10); },
       {"value of key 'deep': arrays nested deeper than 8 levels are not supported"}},
  };
}

INSTANTIATE_TEST_SUITE_P(Stories260K, GgufCorruption, ::testing::ValuesIn(corruptions()),
                         [](const auto& info) { return info.param.name; });

// Cutting the file anywhere inside the header (key/values and tensor infos) or the
// data must give a tessera::Error naming the file, never a crash or another error.
TEST(GgufTruncation, EveryCutIsRefused) {
  const std::string path = test::temp_path("cut.gguf");
  std::vector<uint64_t> cuts;
  for (uint64_t cut = 0; cut < 14200; cut += 37) cuts.push_back(cut);
  for (uint64_t cut : {original().size() - 1, original().size() - 257, uint64_t{500000}})
    cuts.push_back(cut);
  for (uint64_t cut : cuts) {
    const std::vector<uint8_t> bytes(original().begin(),
                                     original().begin() + static_cast<int64_t>(cut));
    test::write_temp("cut.gguf", bytes);
    test::expect_error([&] { GgufFile::open(path); }, {path + ": "});
  }
}

// Random byte changes in the header either still parse or give a tessera::Error;
// any other exception (bad_alloc, length_error) or a sanitizer report is a bug.
TEST(GgufRandomDamage, OnlyEverThrowsTesseraError) {
  std::mt19937 rng(1234);
  const std::string path = test::temp_path("damaged.gguf");
  int refused = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<uint8_t> bytes = original();
    const int n_flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n_flips; ++i) bytes[rng() % 14176] = static_cast<uint8_t>(rng());
    test::write_temp("damaged.gguf", bytes);
    try {
      GgufFile::open(path);
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::StartsWith(path + ": "));
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace tessera
