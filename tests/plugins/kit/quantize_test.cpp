// kit::quantize_row against llama.cpp's reference quantisers on the same inputs
// (tests/fixtures/quant/quantize_input.gguf): the same bytes for the formats ggml rounds
// directly (q4_0, q4_1, q5_0, q5_1, q8_0), and no larger an RMS error for the formats whose
// quantisers search scales (the K formats, iq4_nl, iq4_xs). Errors are measured through
// kit::dequantize_row, which equals gguf-py's dequantisation bit for bit.
#include <tessera/kit/quantize.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <tessera/kit/dequantize.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/tensor_info.h>

#include "plugins/kit/quant_fixture.h"

namespace tessera {
namespace {

// How much larger than llama.cpp's RMS error ours may be: 1%.
constexpr double kRmsSlack = 1.01;

struct Quantized {
  std::vector<uint8_t> bytes;
  double rms = 0;  // of dequantize(quantize(x)) - x over the whole input
};

Quantized quantize_input(const TensorView& input, tsr_dtype dtype) {
  const int64_t rows = input.shape[0], cols = input.shape[1];
  const int64_t row_bytes = kit::dtype_row_bytes(dtype, cols);
  Quantized q;
  q.bytes.resize(static_cast<size_t>(rows * row_bytes));
  std::vector<float> back(static_cast<size_t>(cols));
  double sum = 0;
  const auto* x = static_cast<const float*>(input.data);
  for (int64_t r = 0; r < rows; ++r) {
    kit::quantize_row(dtype, x + r * cols, q.bytes.data() + r * row_bytes, cols);
    kit::dequantize_row(dtype, q.bytes.data() + r * row_bytes, back.data(), cols);
    for (int64_t c = 0; c < cols; ++c) {
      const double d = static_cast<double>(back[static_cast<size_t>(c)]) - x[r * cols + c];
      sum += d * d;
    }
  }
  q.rms = std::sqrt(sum / static_cast<double>(rows * cols));
  return q;
}

class QuantizeFixture : public ::testing::TestWithParam<tsr_dtype> {};

TEST_P(QuantizeFixture, ReachesLlamaCppError) {
  const tsr_dtype dtype = GetParam();
  const std::string name(kit::dtype_traits(dtype).name);
  const auto file = test::open_quant_fixture("quantize_input.gguf");
  const Quantized ours = quantize_input(test::fixture_tensor(*file, "input"), dtype);
  const MetaValue* reference = file->find_meta("rms.llama_cpp." + name);
  ASSERT_NE(reference, nullptr);
  const double theirs = reference->as_float();
  EXPECT_LE(ours.rms, theirs * kRmsSlack) << name << ": RMS error " << ours.rms << ", llama.cpp " << theirs;
  RecordProperty("rms_" + name, std::to_string(ours.rms) + " (llama.cpp " + std::to_string(theirs) + ")");
  std::printf("%s: RMS error %.6g, llama.cpp's reference quantizer %.6g\n", name.c_str(), ours.rms, theirs);
}

INSTANTIATE_TEST_SUITE_P(EveryBlockFormat, QuantizeFixture, ::testing::ValuesIn(test::fixture_block_formats()),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

class RoundingQuantizer : public ::testing::TestWithParam<tsr_dtype> {};

TEST_P(RoundingQuantizer, WritesLlamaCppBytes) {
  const tsr_dtype dtype = GetParam();
  const std::string name(kit::dtype_traits(dtype).name);
  const auto file = test::open_quant_fixture("quantize_input.gguf");
  const Quantized ours = quantize_input(test::fixture_tensor(*file, "input"), dtype);
  const TensorView& theirs = test::fixture_tensor(*file, name + ".llama_cpp");
  ASSERT_EQ(ours.bytes.size(), theirs.n_bytes);
  size_t first = ours.bytes.size();
  for (size_t i = 0; i < ours.bytes.size() && first == ours.bytes.size(); ++i) {
    if (ours.bytes[i] != static_cast<const uint8_t*>(theirs.data)[i]) first = i;
  }
  EXPECT_EQ(first, ours.bytes.size()) << name << ": bytes differ from llama.cpp's from byte " << first;
}

INSTANTIATE_TEST_SUITE_P(LinearFormats, RoundingQuantizer,
                         ::testing::Values(TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0, TSR_DTYPE_Q5_1,
                                           TSR_DTYPE_Q8_0),
                         [](const auto& info) { return std::string(kit::dtype_traits(info.param).name); });

TEST(Quantize, RoundTripsThroughEveryFormatWithinItsError) {
  // A smooth row: every format must reconstruct it to within a few percent of its range.
  std::vector<float> x(512);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.05f * static_cast<float>(i)) + 0.1f;
  for (const tsr_dtype dtype : test::fixture_block_formats()) {
    std::vector<uint8_t> q(static_cast<size_t>(kit::dtype_row_bytes(dtype, 512)));
    std::vector<float> back(512);
    kit::quantize_row(dtype, x.data(), q.data(), 512);
    kit::dequantize_row(dtype, q.data(), back.data(), 512);
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) worst = std::fmax(worst, std::fabs(back[i] - x[i]));
    const double bound = dtype == TSR_DTYPE_Q2_K ? 0.35 : (dtype == TSR_DTYPE_Q3_K ? 0.2 : 0.12);
    EXPECT_LE(worst, bound) << kit::dtype_traits(dtype).name;
  }
}

}  // namespace
}  // namespace tessera
