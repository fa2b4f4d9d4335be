// GgufWriter: what it writes reads back identically through GgufFile (every metadata
// type, every dtype, filler chunks, alignment), invalid input is refused up front,
// and I/O failures leave no file behind.
#include "core/weights/gguf_writer.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <random>

#include "core/weights/gguf_reader.h"
#include "core/weights/gguf_types.h"
#include "core/weights/gguf_values.h"
#include "support/testdata.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<GgufFile> write_and_read(const GgufWriter& writer,
                                         const std::string& suffix = "out.gguf") {
  const std::string path = test::temp_path(suffix);
  writer.write(path);
  return GgufFile::open(path);
}

const MetaValue& meta(const GgufFile& file, const std::string& key) {
  const MetaValue* v = file.find_meta(key);
  if (v == nullptr) throw std::runtime_error("missing key " + key);
  return *v;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

TEST(GgufWriter, EveryScalarTypeRoundTripsWithItsType) {
  GgufWriter w;
  w.set_meta("u8", gguf::make_u8(255));
  w.set_meta("i8", gguf::make_i8(-128));
  w.set_meta("u16", gguf::make_u16(65535));
  w.set_meta("i16", gguf::make_i16(-32768));
  w.set_meta("u32", gguf::make_u32(4294967295u));
  w.set_meta("i32", gguf::make_i32(INT32_MIN));
  w.set_meta("u64", gguf::make_u64(UINT64_MAX));
  w.set_meta("i64", gguf::make_i64(INT64_MIN));
  w.set_meta("f32", gguf::make_f32(0.1f));
  w.set_meta("f64", gguf::make_f64(0.1));
  w.set_meta("bool", gguf::make_bool(true));
  w.set_meta("string", gguf::make_string("h\xc3\xa9llo \xe2\x96\x81"));
  const auto file = write_and_read(w);
  EXPECT_EQ(file->version(), 3u);
  ASSERT_EQ(file->metadata().size(), 12u);
  const std::vector<std::pair<std::string, int>> types = {
      {"u8", gguf::kUint8},    {"i8", gguf::kInt8},    {"u16", gguf::kUint16},
      {"i16", gguf::kInt16},   {"u32", gguf::kUint32}, {"i32", gguf::kInt32},
      {"u64", gguf::kUint64},  {"i64", gguf::kInt64},  {"f32", gguf::kFloat32},
      {"f64", gguf::kFloat64}, {"bool", gguf::kBool},  {"string", gguf::kString}};
  for (const auto& [key, type] : types) EXPECT_EQ(meta(*file, key).gguf_type, type) << key;
  EXPECT_EQ(meta(*file, "u8").as_int(), 255);
  EXPECT_EQ(meta(*file, "i8").as_int(), -128);
  EXPECT_EQ(meta(*file, "u16").as_int(), 65535);
  EXPECT_EQ(meta(*file, "i16").as_int(), -32768);
  EXPECT_EQ(meta(*file, "u32").as_int(), 4294967295);
  EXPECT_EQ(meta(*file, "i32").as_int(), INT32_MIN);
  EXPECT_EQ(std::get<uint64_t>(meta(*file, "u64").value), UINT64_MAX);
  EXPECT_EQ(meta(*file, "i64").as_int(), INT64_MIN);
  EXPECT_EQ(meta(*file, "f32").as_float(), static_cast<double>(0.1f));
  EXPECT_EQ(meta(*file, "f64").as_float(), 0.1);
  EXPECT_EQ(std::get<bool>(meta(*file, "bool").value), true);
  EXPECT_EQ(meta(*file, "string").as_string(), "h\xc3\xa9llo \xe2\x96\x81");
}

TEST(GgufWriter, ArraysRoundTripIncludingNestedAndEmpty) {
  GgufWriter w;
  w.set_meta("strings", gguf::make_string_array({"a", "", "\xe2\x96\x81the"}));
  const std::vector<float> floats = {1.5f, -0.0f, 3e-8f};
  w.set_meta("floats", gguf::make_f32_array(floats));
  const std::vector<int32_t> ints = {-1, 0, 7};
  w.set_meta("ints", gguf::make_i32_array(ints));
  const std::vector<uint32_t> uints = {4000000000u};
  w.set_meta("uints", gguf::make_u32_array(uints));
  w.set_meta("nested", gguf::make_array(
                           gguf::kArray,
                           {gguf::make_array(gguf::kInt16, {gguf::make_i16(1), gguf::make_i16(2)}),
                            gguf::make_array(gguf::kInt16, {})}));
  w.set_meta("empty", gguf::make_array(gguf::kFloat64, {}));
  const auto file = write_and_read(w);

  const MetaArray& strings = meta(*file, "strings").as_array();
  ASSERT_EQ(strings.size(), 3u);
  EXPECT_EQ(strings[2].as_string(), "\xe2\x96\x81the");
  EXPECT_EQ(meta(*file, "strings").gguf_elem_type, gguf::kString);
  const MetaArray& f = meta(*file, "floats").as_array();
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2].as_float(), static_cast<double>(3e-8f));
  EXPECT_TRUE(std::signbit(f[1].as_float()));
  EXPECT_EQ(meta(*file, "ints").as_array()[0].as_int(), -1);
  EXPECT_EQ(meta(*file, "ints").gguf_elem_type, gguf::kInt32);
  EXPECT_EQ(meta(*file, "uints").as_array()[0].as_int(), 4000000000);
  const MetaArray& nested = meta(*file, "nested").as_array();
  ASSERT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested[0].gguf_elem_type, gguf::kInt16);
  EXPECT_EQ(nested[0].as_array()[1].as_int(), 2);
  EXPECT_TRUE(nested[1].as_array().empty());
  EXPECT_EQ(nested[1].gguf_elem_type, gguf::kInt16);
  EXPECT_TRUE(meta(*file, "empty").as_array().empty());
  EXPECT_EQ(meta(*file, "empty").gguf_elem_type, gguf::kFloat64);
}

TEST(GgufWriter, UntypedValuesGetTheirNaturalType) {
  GgufWriter w;
  w.set_meta("signed", MetaValue{.value = int64_t{-3}});
  w.set_meta("unsigned", MetaValue{.value = uint64_t{3}});
  w.set_meta("real", MetaValue{.value = 0.25});
  w.set_meta("list", MetaValue{.value = MetaArray{MetaValue{.value = std::string("x")}}});
  w.set_meta("none", MetaValue{.value = MetaArray{}});
  const auto file = write_and_read(w);
  EXPECT_EQ(meta(*file, "signed").gguf_type, gguf::kInt64);
  EXPECT_EQ(meta(*file, "unsigned").gguf_type, gguf::kUint64);
  EXPECT_EQ(meta(*file, "real").gguf_type, gguf::kFloat64);
  EXPECT_EQ(meta(*file, "list").gguf_elem_type, gguf::kString);
  EXPECT_EQ(meta(*file, "none").gguf_elem_type, gguf::kInt32);
}

TEST(GgufWriter, MetadataIsWrittenInTheOrderFirstSet) {
  GgufWriter w;
  w.set_meta("b", gguf::make_u32(1));
  w.set_meta("a", gguf::make_u32(2));
  w.set_meta("b", gguf::make_u32(3));  // replaces, keeps its place
  EXPECT_EQ(w.meta_count(), 2u);
  const std::string path = test::temp_path("order.gguf");
  w.write(path);
  const std::vector<uint8_t> bytes = test::read_bytes(path);
  // The first key starts right after the 24-byte header: length 1, "b", type, value 3.
  EXPECT_EQ(bytes[32], 'b');
  EXPECT_EQ(test::peek<uint32_t>(bytes, 37), 3u);
}

TEST(GgufWriter, TensorsOfEveryDtypeRoundTripAligned) {
  struct Case {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    size_t n_bytes;
  };
  const std::vector<Case> cases = {{"f32", DType::F32, {3, 5}, 60},
                                   {"f16", DType::F16, {2, 7}, 28},
                                   {"bf16", DType::BF16, {9}, 18},
                                   {"q8_0", DType::Q8_0, {2, 1, 3, 64}, 6 * 2 * 34},
                                   {"i32", DType::I32, {1, 3}, 12}};
  GgufWriter w;
  std::vector<std::vector<uint8_t>> payloads;
  for (size_t i = 0; i < cases.size(); ++i) {
    payloads.push_back(random_bytes(cases[i].n_bytes, static_cast<uint32_t>(i)));
    if (cases[i].dtype == DType::Q8_0) {
      // The reader refuses NaN and infinite block scales: keep each f16 d's exponent below 31.
      for (size_t b = 0; b < cases[i].n_bytes / 34; ++b) payloads.back()[b * 34 + 1] &= 0x3b;
    }
    w.add_tensor(cases[i].name, cases[i].dtype, cases[i].shape, payloads.back());
  }
  const auto file = write_and_read(w);
  ASSERT_EQ(file->tensors().size(), cases.size());
  const auto* base = static_cast<const uint8_t*>(file->tensors()[0].data) - file->data_offset();
  for (size_t i = 0; i < cases.size(); ++i) {
    const TensorView& t = file->tensors()[i];
    EXPECT_EQ(t.name, cases[i].name);
    EXPECT_EQ(t.dtype, cases[i].dtype) << t.name;
    EXPECT_EQ(t.shape, cases[i].shape) << t.name;
    ASSERT_EQ(t.n_bytes, cases[i].n_bytes) << t.name;
    EXPECT_EQ(std::memcmp(t.data, payloads[i].data(), t.n_bytes), 0) << t.name;
    EXPECT_EQ((static_cast<const uint8_t*>(t.data) - base) % 32, 0) << t.name;
  }
  // The data section ends padded to the alignment, as GGML readers expect.
  EXPECT_EQ(fs::file_size(file->path()) % 32, 0u);
}

TEST(GgufWriter, FillerGetsChunksOfWholeRows) {
  // 1100 rows of 4 KiB: 1024 rows fill the 4 MiB chunk, then 76 more.
  std::vector<std::pair<int64_t, int64_t>> calls;
  GgufWriter w;
  w.add_tensor("big", DType::F32, {1100, 1024}, [&calls](int64_t first, int64_t n, void* dst) {
    calls.emplace_back(first, n);
    auto* f = static_cast<float*>(dst);
    for (int64_t r = 0; r < n; ++r)
      std::fill(f + r * 1024, f + (r + 1) * 1024, static_cast<float>(first + r));
  });
  const auto file = write_and_read(w);
  EXPECT_EQ(calls, (std::vector<std::pair<int64_t, int64_t>>{{0, 1024}, {1024, 76}}));
  const auto* data = static_cast<const float*>(file->tensors()[0].data);
  EXPECT_EQ(data[0], 0.0f);
  EXPECT_EQ(data[1023 * 1024 + 5], 1023.0f);
  EXPECT_EQ(data[1099 * 1024 + 1023], 1099.0f);
}

TEST(GgufWriter, AlignmentKeyIsHonoured) {
  GgufWriter w;
  w.set_meta("general.alignment", gguf::make_u32(64));
  w.add_tensor("a", DType::F32, {3}, random_bytes(12, 1));
  w.add_tensor("b", DType::F32, {3}, random_bytes(12, 2));
  const auto file = write_and_read(w);
  EXPECT_EQ(file->alignment(), 64u);
  EXPECT_EQ(file->data_offset() % 64, 0u);
  EXPECT_EQ(static_cast<const uint8_t*>(file->tensors()[1].data) -
                static_cast<const uint8_t*>(file->tensors()[0].data),
            64);
}

TEST(GgufWriter, CopiedTokenizerRoundTripsExactly) {
  const auto source = GgufFile::open(test::testdata_path("stories260K/stories260K.gguf"));
  GgufWriter w;
  w.copy_meta(*source, "tokenizer.");
  EXPECT_EQ(w.meta_count(), 9u);
  const auto copy = write_and_read(w);
  for (const auto& [key, value] : source->metadata()) {
    if (key.rfind("tokenizer.", 0) != 0) continue;
    const MetaValue& got = meta(*copy, key);
    EXPECT_EQ(got.gguf_type, value.gguf_type) << key;
    EXPECT_EQ(got.gguf_elem_type, value.gguf_elem_type) << key;
    if (value.gguf_type != gguf::kArray) {
      EXPECT_TRUE(got.value == value.value) << key;
      continue;
    }
    const MetaArray& a = got.as_array();
    const MetaArray& b = value.as_array();
    ASSERT_EQ(a.size(), b.size()) << key;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_TRUE(a[i].value == b[i].value && a[i].gguf_type == b[i].gguf_type)
          << key << "[" << i << "]";
    }
  }
}

TEST(GgufWriter, RewrittenModelReadsBackEqual) {
  const auto source = GgufFile::open(test::testdata_path("stories260K/stories260K.gguf"));
  GgufWriter w;
  w.copy_meta(*source);
  for (const TensorView& t : source->tensors())
    w.add_tensor(t.name, t.dtype, t.shape, t.data, t.n_bytes);
  const auto copy = write_and_read(w);
  EXPECT_EQ(copy->metadata().size(), 19u);
  EXPECT_EQ(fs::file_size(copy->path()),
            fs::file_size(source->path()));  // same content, other key order
  ASSERT_EQ(copy->tensors().size(), 48u);
  for (size_t i = 0; i < 48; ++i) {
    const TensorView& a = copy->tensors()[i];
    const TensorView& b = source->tensors()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.shape, b.shape) << a.name;
    EXPECT_EQ(std::memcmp(a.data, b.data, a.n_bytes), 0) << a.name;
  }
}

TEST(GgufWriter, OutOfRangeValueIsRefused) {
  GgufWriter w;
  test::expect_error(
      [&] { w.set_meta("x", MetaValue{.value = int64_t{300}, .gguf_type = gguf::kUint8}); },
      {"metadata key 'x': cannot store 300 as GGUF uint8 (out of range)"});
  test::expect_error(
      [&] { w.set_meta("y", MetaValue{.value = int64_t{-1}, .gguf_type = gguf::kUint64}); },
      {"cannot store -1 as GGUF uint64 (out of range)"});
}

TEST(GgufWriter, KindNotMatchingTypeIsRefused) {
  GgufWriter w;
  test::expect_error(
      [&] { w.set_meta("x", MetaValue{.value = std::string("a"), .gguf_type = gguf::kUint32}); },
      {"metadata key 'x': cannot store \"a\" as GGUF uint32"});
  test::expect_error([&] { w.set_meta("x", MetaValue{.value = 1.0, .gguf_type = 42}); },
                     {"unknown type code 42"});
}

TEST(GgufWriter, MixedArrayIsRefused) {
  GgufWriter w;
  MetaValue mixed{.value = MetaArray{gguf::make_string("a"), gguf::make_i32(1)}};
  test::expect_error([&] { w.set_meta("x", mixed); },
                     {"metadata key 'x': array mixes string and int32 elements (element 1)"});
  EXPECT_EQ(w.meta_count(), 0u);
}

TEST(GgufWriter, BadAlignmentIsRefused) {
  GgufWriter w;
  test::expect_error([&] { w.set_meta("general.alignment", gguf::make_u32(48)); },
                     {"metadata key 'general.alignment' must be a uint32 power of two, found 48"});
  test::expect_error([&] { w.set_meta("general.alignment", gguf::make_u64(64)); },
                     {"must be a uint32"});
}

TEST(GgufWriter, InvalidTensorsAreRefused) {
  GgufWriter w;
  w.add_tensor("w", DType::F32, {3}, random_bytes(12, 0));
  test::expect_error([&] { w.add_tensor("w", DType::F32, {3}, random_bytes(12, 0)); },
                     {"GGUF tensor 'w': a tensor of this name was already added"});
  test::expect_error([&] { w.add_tensor("v", DType::F32, {3}, random_bytes(10, 0)); },
                     {"GGUF tensor 'v': 10 bytes given, but its f32 shape needs 12"});
  test::expect_error(
      [&] {
        w.add_tensor("q", DType::Q8_0, {2, 33}, random_bytes(34, 0));
      },
      {"GGUF tensor 'q': innermost dimension 33 is not a multiple of the q8_0 block size 32"});
  test::expect_error(
      [&] {
        w.add_tensor("z", DType::F32, {2, 0}, random_bytes(0, 0));
      },
      {"GGUF tensor 'z': dimension 1 is 0 (must be positive)"});
  test::expect_error(
      [&] {
        w.add_tensor("d", DType::F32, {1, 1, 1, 1, 1}, random_bytes(4, 0));
      },
      {"GGUF tensor 'd': 5 dimensions (must be 1 to 4)"});
  test::expect_error(
      [&] { w.add_tensor(std::string(64, 'n'), DType::F32, {1}, random_bytes(4, 0)); },
      {"name is longer than 63 bytes"});
  test::expect_error([&] { w.add_tensor("f", DType::F32, {1}, GgufWriter::RowFiller()); },
                     {"GGUF tensor 'f': no filler given"});
  EXPECT_EQ(w.tensor_count(), 1u);
}

TEST(GgufWriter, MissingDirectoryIsReported) {
  GgufWriter w;
  const std::string path = ::testing::TempDir() + "no_such_dir_tessera/model.gguf";
  test::expect_error([&] { w.write(path); },
                     {path + ": cannot create '" + path + ".tmp': No such file or directory"});
}

TEST(GgufWriter, WriteFailureKeepsTheOldFileAndRemovesTheTemp) {
  const std::string path = test::temp_path("limited.gguf");
  test::write_temp("limited.gguf", {'o', 'l', 'd'});
  GgufWriter w;
  w.add_tensor("big", DType::F32, {256, 1024}, random_bytes(1 << 20, 3));
  // A file size limit makes write() fail with EFBIG part-way, like a full disk would.
  struct rlimit old_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = old_limit;
  limit.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  test::expect_error([&] { w.write(path); },
                     {path + ": cannot write '" + path + ".tmp' at byte", "File too large"});
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_EQ(test::read_bytes(path), (std::vector<uint8_t>{'o', 'l', 'd'}));
}

TEST(GgufWriter, FillerExceptionPropagatesAndRemovesTheTemp) {
  const std::string path = test::temp_path("boom.gguf");
  GgufWriter w;
  w.add_tensor("t", DType::F32, {4},
               [](int64_t, int64_t, void*) { throw std::runtime_error("filler failed"); });
  EXPECT_THROW(w.write(path), std::runtime_error);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace tessera
