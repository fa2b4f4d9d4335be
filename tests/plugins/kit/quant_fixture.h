// The block-format fixtures of tests/fixtures/quant (tools/fixtures/make_quant_fixtures.py,
// gguf-py and llama.cpp as the oracles), read through Tessera's GGUF reader.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tessera/plugin_abi.h>

#include "core/weights/gguf_reader.h"
#include "support/testdata.h"

namespace tessera::test {

// The 12 block formats the fixtures cover, by dtype.
inline const std::vector<tsr_dtype>& fixture_block_formats() {
  static const std::vector<tsr_dtype> kFormats = {
      TSR_DTYPE_Q4_0, TSR_DTYPE_Q4_1, TSR_DTYPE_Q5_0, TSR_DTYPE_Q5_1, TSR_DTYPE_Q8_0,  TSR_DTYPE_Q2_K,
      TSR_DTYPE_Q3_K, TSR_DTYPE_Q4_K, TSR_DTYPE_Q5_K, TSR_DTYPE_Q6_K, TSR_DTYPE_IQ4_NL, TSR_DTYPE_IQ4_XS};
  return kFormats;
}

inline std::unique_ptr<GgufFile> open_quant_fixture(const std::string& name) {
  return GgufFile::open(source_path("tests/fixtures/quant/" + name));
}

// The tensor `name` of `file`, failing the test when it is absent.
inline const TensorView& fixture_tensor(const WeightFile& file, const std::string& name) {
  const TensorView* t = file.find_tensor(name);
  if (t == nullptr) throw std::runtime_error("fixture tensor '" + name + "' is missing");
  return *t;
}

}  // namespace tessera::test
