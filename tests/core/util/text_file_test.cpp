// Whole-file text inputs: read when they are regular files within the size limit;
// a directory, a FIFO (which would block a plain read) and /dev/zero (which never
// ends) are errors naming the path and what it is.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/util/error.h"
#include "core/util/text_file.h"
#include "support/temp_path.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string error_of(const std::string& path, uint64_t max_bytes = 1 << 20) {
  try {
    read_text_file(path, max_bytes, "a test input");
  } catch (const Error& e) {
    return e.what();
  }
  return "read";
}

TEST(TextFile, ReadsARegularFile) {
  const std::string path = test::temp_path("text.txt");
  std::ofstream(path) << "hello\nworld";
  EXPECT_EQ(read_text_file(path, 100, "a test input"), "hello\nworld");
  std::filesystem::remove(path);
}

TEST(TextFile, RefusesAFileOverTheLimit) {
  const std::string path = test::temp_path("big.txt");
  std::ofstream(path) << std::string(2048, 'x');
  EXPECT_EQ(error_of(path, 1024), path + ": is 2.0 KiB, more than the 1.0 KiB a test input may be");
  std::filesystem::remove(path);
}

TEST(TextFile, RefusesADirectoryAFifoAndADevice) {
  EXPECT_EQ(error_of("/tmp"), "/tmp: is a directory");
  const std::string fifo = test::temp_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of(fifo), fifo + ": is not a regular file (a FIFO)");  // and does not block
  std::filesystem::remove(fifo);
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: is not a regular file (a character device)");
  EXPECT_THAT(error_of("/nonexistent/x"), HasSubstr("/nonexistent/x: cannot open: "));
}

}  // namespace
}  // namespace tessera
