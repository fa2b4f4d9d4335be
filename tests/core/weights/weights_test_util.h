// Helpers shared by the weight-file tests: file bytes in and out of a temp folder
// (named by support/temp_path.h), little-endian patches, and assertions on the
// message of a tessera::Error.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "core/util/error.h"
#include "support/temp_path.h"

namespace tessera::test {

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string write_temp(const std::string& suffix, const std::vector<uint8_t>& bytes) {
  const std::string path = temp_path(suffix);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(out.good()) << "cannot write " << path;
  return path;
}

template <typename T>
void patch(std::vector<uint8_t>& bytes, uint64_t offset, T value) {
  ASSERT_LE(offset + sizeof(T), bytes.size());
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

template <typename T>
T peek(const std::vector<uint8_t>& bytes, uint64_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// Runs `fn`, which must throw tessera::Error whose message contains every part.
inline void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "expected a tessera::Error containing '" << parts.front() << "'";
  } catch (const Error& e) {
    for (const std::string& part : parts) EXPECT_THAT(e.what(), ::testing::HasSubstr(part));
  }
}

// Runs `fn`, which must throw tessera::Error with exactly `message`.
inline void expect_error_message(const std::function<void()>& fn, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "expected a tessera::Error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace tessera::test
