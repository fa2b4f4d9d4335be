// A corpus of broken safetensors files, each refused by SafetensorsFile with its
// exact message: the file, what is wrong, and where when a position is known.
#include <gtest/gtest.h>

#include "core/weights/safetensors_file.h"
#include "safetensors_test_util.h"

namespace tessera {
namespace {

struct BrokenFile {
  const char* name;
  std::string header;          // JSON header text, padded to 8-byte alignment when `pad`
  std::vector<uint8_t> data;   // the data section
  std::string expected;        // the message after "PATH: "; "@DATA" is the data offset
  bool pad = true;
};

void PrintTo(const BrokenFile& c, std::ostream* os) { *os << c.name; }

const std::string kTensorW = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";

std::string padded(std::string header) {
  header.resize((8 + header.size() + 7) / 8 * 8 - 8, ' ');
  return header;
}

std::vector<BrokenFile> corpus() {
  const std::vector<uint8_t> eight(8, 0);
  return {
      {"HeaderNotObject", "[1,2]", {}, "the header is an array, not an object"},
      {"InvalidJson", R"({"w": x})", {},
       "invalid JSON in the header: parse error at line 1, column 7: syntax error while parsing "
       "value - invalid literal; last read: '\"w\": x' (offset 14)", false},
      {"JsonCutShort", R"({"w":{"dtype")", {},
       "invalid JSON in the header: parse error at line 1, column 14: syntax error while parsing "
       "object separator - unexpected end of input; expected ':' (offset 21)", false},
      {"InvalidUtf8InName", "{\"w\xff\":{}}", {},
       "invalid JSON in the header: parse error at line 1, column 4: syntax error while parsing "
       "object key - invalid string: ill-formed UTF-8 byte; last read: '\"w\\xff'; expected "
       "string literal (offset 11)", false},
      // Found by tests/fuzz/safetensors_fuzz: escaped as a crash before.
      {"NumberBeyondADouble", R"({"w":{"dtype":"F32","shape":[1e999],"data_offsets":[0,8]}})", eight,
       "number 1e999 is out of range at key 'shape' in the header (inside 'w')"},
      {"TensorNotObject", R"({"w":"F32"})", {}, "tensor 'w' is described by a string, not an object"},
      {"EmptyTensorName", "{\"\":{" + kTensorW + "}}", eight, "a tensor has an empty name"},
      {"DuplicateTensorName", "{\"w\":{" + kTensorW + "},\"w\":{" + kTensorW + "}}", eight,
       "duplicate key 'w' in the header"},
      {"DuplicateField", R"({"w":{"dtype":"F32","dtype":"F16","shape":[2],"data_offsets":[0,8]}})",
       eight, "duplicate key 'dtype' in the header (inside 'w')"},
      {"MissingDtype", R"({"w":{"shape":[2],"data_offsets":[0,8]}})", eight,
       "tensor 'w' has no 'dtype'"},
      {"DtypeNotString", R"({"w":{"dtype":32,"shape":[2],"data_offsets":[0,8]}})", eight,
       "tensor 'w': 'dtype' is an integer, not a string"},
      {"UnsupportedDtype", R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", eight,
       "tensor 'w' has dtype 'F64', which is not supported (supported: F32, F16, BF16, I32)"},
      {"MissingShape", R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", eight,
       "tensor 'w' has no 'shape'"},
      {"ShapeNotArray", R"({"w":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", eight,
       "tensor 'w': 'shape' is an integer, not an array"},
      {"NegativeDimension", R"({"w":{"dtype":"F32","shape":[2,-3],"data_offsets":[0,8]}})", eight,
       "tensor 'w': 'shape' element 1 is -3 (must not be negative)"},
      {"FractionalDimension", R"({"w":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", eight,
       "tensor 'w': 'shape' element 0 is a float, not an integer"},
      {"ElementCountOverflow",
       R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})", eight,
       "tensor 'w' element count overflows 64 bits"},
      {"MissingOffsets", R"({"w":{"dtype":"F32","shape":[2]}})", eight,
       "tensor 'w' has no 'data_offsets'"},
      {"OneOffset", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8]}})", eight,
       "tensor 'w': 'data_offsets' must be an array of 2 integers, found an array of 1"},
      {"NegativeOffset", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}})", eight,
       "tensor 'w': 'data_offsets' element 0 is -8 (must not be negative)"},
      {"ReversedOffsets", R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", eight,
       "tensor 'w' data_offsets [8, 0] are reversed (the end comes before the start)"},
      {"SizeMismatch", R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})",
       std::vector<uint8_t>(16, 0),
       "tensor 'w' holds 12 bytes (data_offsets [0, 12]) but its shape [2, 2] of F32 needs 16"},
      {"OffsetsPastDataSection", R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
       eight,
       "tensor 'w' data_offsets [0, 16] run past the end of the data section (8 bytes from "
       "offset @DATA)"},
      {"OverlappingTensors",
       R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
       R"("b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
       std::vector<uint8_t>(24, 0), "tensors 'a' [0, 16] and 'b' [8, 24] overlap"},
      {"MisalignedData", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})", eight,
       "tensor 'w' data is not aligned to its 4-byte elements (write the file again with a "
       "current safetensors writer) (offset @DATA+2)"},
      {"MetadataNotObject", R"({"__metadata__":["pt"]})", {},
       "'__metadata__' is an array, not an object"},
      {"MetadataValueNotString", R"({"__metadata__":{"epochs":3}})", {},
       "'__metadata__' entry 'epochs' is an integer, not a string"},
      {"NestedTooDeep", "{\"__metadata__\":" + std::string(70, '[') + std::string(70, ']') + "}",
       {}, "JSON in the header nests deeper than 64 levels"},
  };
}

class SafetensorsCorruption : public ::testing::TestWithParam<BrokenFile> {};

TEST_P(SafetensorsCorruption, IsRefusedWithItsMessage) {
  const BrokenFile& c = GetParam();
  const std::string header = c.pad ? padded(c.header) : c.header;
  const std::string path =
      test::write_temp("broken.safetensors", test::safetensors_bytes(header, c.data));
  const uint64_t data_offset = 8 + header.size();
  std::string expected = c.expected;
  if (const size_t at = expected.find("@DATA+2"); at != std::string::npos) {
    expected.replace(at, 7, std::to_string(data_offset + 2));
  } else if (const size_t at2 = expected.find("@DATA"); at2 != std::string::npos) {
    expected.replace(at2, 5, std::to_string(data_offset));
  }
  test::expect_error_message([&] { SafetensorsFile::open(path); }, path + ": " + expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, SafetensorsCorruption, ::testing::ValuesIn(corpus()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(SafetensorsHeaderLength, FileShorterThanTheLengthFieldIsTruncated) {
  const std::string path = test::write_temp("short.safetensors", {1, 2, 3});
  test::expect_error_message(
      [&] { SafetensorsFile::open(path); },
      path + ": truncated file: header length needs 8 bytes but only 3 remain (offset 0)");
}

TEST(SafetensorsHeaderLength, LengthPastTheEndOfTheFileIsRefused) {
  std::vector<uint8_t> bytes = test::safetensors_bytes("{}      ", {});
  test::patch(bytes, 0, uint64_t{1000});
  const std::string path = test::write_temp("cut.safetensors", bytes);
  test::expect_error_message(
      [&] { SafetensorsFile::open(path); },
      path + ": header length 1000 runs past the end of the file (16 bytes) (offset 0)");
}

TEST(SafetensorsHeaderLength, AbsurdLengthIsRefusedBeforeReading) {
  std::vector<uint8_t> bytes = test::safetensors_bytes("{}      ", {});
  test::patch(bytes, 0, uint64_t{1} << 40);
  const std::string path = test::write_temp("huge.safetensors", bytes);
  test::expect_error_message([&] { SafetensorsFile::open(path); },
                             path + ": header length 1099511627776 is implausibly large (the "
                                    "limit is 100000000 bytes) (offset 0)");
}

TEST(SafetensorsHeaderLength, EmptyHeaderIsInvalidJson) {
  const std::string path = test::write_temp("empty.safetensors", test::safetensors_bytes("", {}));
  test::expect_error_message(
      [&] { SafetensorsFile::open(path); },
      path + ": invalid JSON in the header: parse error at line 1, column 1: syntax error while "
             "parsing value - unexpected end of input; expected '[', '{', or a literal (offset 8)");
}

}  // namespace
}  // namespace tessera
