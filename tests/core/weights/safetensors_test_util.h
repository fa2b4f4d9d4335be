// Helpers of the safetensors and model-folder tests: tensor bytes from float lists,
// safetensors files assembled from a header text, and temporary folders.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/tensor/dtype.h"
#include "weights_test_util.h"

namespace tessera::test {

// Values stored as little-endian f32, f16 or bf16 (rounded to nearest even).
inline std::vector<uint8_t> encode(DType dtype, const std::vector<float>& values) {
  const size_t elem = static_cast<size_t>(dtype_block_bytes(dtype));
  std::vector<uint8_t> bytes(values.size() * elem);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F32) {
      std::memcpy(&bytes[i * elem], &values[i], elem);
    } else {
      const uint16_t half =
          dtype == DType::F16 ? f32_to_f16(values[i]) : f32_to_bf16(values[i]);
      std::memcpy(&bytes[i * elem], &half, elem);
    }
  }
  return bytes;
}

// The values of a tensor's bytes as floats.
inline std::vector<float> decode(DType dtype, const void* data, int64_t n) {
  std::vector<float> values(static_cast<size_t>(n));
  dequantize_row(dtype, data, values.data(), n);
  return values;
}

// A safetensors file: the u64 header length, `header` as given, then `data`.
inline std::vector<uint8_t> safetensors_bytes(const std::string& header,
                                              const std::vector<uint8_t>& data) {
  const uint64_t length = header.size();
  std::vector<uint8_t> bytes(8 + header.size() + data.size());
  std::memcpy(bytes.data(), &length, 8);
  std::copy(header.begin(), header.end(), bytes.begin() + 8);
  std::copy(data.begin(), data.end(), bytes.begin() + 8 + static_cast<ptrdiff_t>(header.size()));
  return bytes;
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// A fresh empty folder in the test temp folder, removed with its contents at the end.
class TempFolder {
 public:
  explicit TempFolder(const std::string& name) : path_(temp_path(name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const {
    return (std::filesystem::path(path_) / name).string();
  }

 private:
  std::string path_;
};

}  // namespace tessera::test
