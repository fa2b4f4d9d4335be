// Checks shared by the tests that run the library against transformers' fixture logits
// (hf_fixtures_test.cpp on the folders, llamacpp_layout_test.cpp on llama.cpp's GGUFs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "core/engine/backend.h"
#include "core/engine/model.h"
#include "core/engine/session.h"
#include "core/util/error.h"
#include "models/hf_fixture.h"

namespace tessera::test {

// Logits are O(1..10); transformers computes in f32 in another order, and the fixture
// rounds to 6 significant digits.
constexpr float kTransformersTolerance = 2e-3f;
// bf16 weights where the CPU backend's prefill rounds x to bf16 before each matmul
// (matmul_bf16.h, on AVX512-BF16 or AMX-BF16; llama.cpp's bf16 path does the same): every
// value keeps 8 significant bits, so logits move by hundredths (0.014 to 0.038 measured
// on the llama-bf16 fixture, on either path).
constexpr float kBf16PrefillTolerance = 6e-2f;

// The tolerance for a prefill of a model with bf16 weights (or not) on `backend`.
inline float prefill_tolerance(const Backend& backend, bool bf16_weights) {
  const std::string description = backend.device->info().description;
  const bool rounds_x = description.find("bf16 prefill on avx512-bf16") != std::string::npos ||
                        description.find("bf16 prefill on amx-bf16") != std::string::npos;
  return bf16_weights && rounds_x ? kBf16PrefillTolerance : kTransformersTolerance;
}

// Largest |got - want| over one row.
inline float row_error(const float* got, const std::vector<float>& want) {
  float worst = 0;
  for (size_t v = 0; v < want.size(); ++v) worst = std::max(worst, std::fabs(got[v] - want[v]));
  return worst;
}

// Feeds `s` to a fresh session `chunk` tokens per step and expects every position's
// logits within `tolerance` of transformers'.
inline void expect_transformers_logits(const Model& model, const Backend& backend, const HfSequence& s,
                                       size_t chunk, float tolerance = kTransformersTolerance) {
  Session session(model, backend, SessionOptions{.kv_block = 4, .n_ctx = 64, .max_step_tokens = 512});
  const size_t n_vocab = s.logits.front().size();
  for (size_t t0 = 0; t0 < s.tokens.size(); t0 += chunk) {
    const size_t n = std::min(chunk, s.tokens.size() - t0);
    const auto& logits = session.feed(std::span<const int32_t>(&s.tokens[t0], n), static_cast<int32_t>(n));
    ASSERT_EQ(logits.size(), n * n_vocab);
    for (size_t t = 0; t < n; ++t) {
      EXPECT_LT(row_error(logits.data() + t * n_vocab, s.logits[t0 + t]), tolerance)
          << "position " << t0 + t << " of " << s.tokens.size();
    }
  }
}

// The message of the error model.tokenizer() throws; a failure when it throws none.
inline std::string tokenizer_error(const Model& model) {
  try {
    model.tokenizer();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "tokenizer() did not throw";
  return "";
}

}  // namespace tessera::test
