// MappedFile: maps whole files read-only or reads them into memory, handles empty
// files, and names the file and the system's reason when it cannot.
#include "core/util/mapped_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/temp_path.h"
#include "support/testdata.h"
#include "weights_test_util.h"

namespace tessera {
namespace {

TEST(MappedFile, MapsTheWholeFile) {
  const std::string path = test::testdata_path("stories260K/tok512.bin");
  const MappedFile file(path);
  EXPECT_EQ(file.path(), path);
  ASSERT_EQ(file.size(), 6227u);
  EXPECT_EQ(std::vector<uint8_t>(file.data(), file.data() + file.size()), test::read_bytes(path));
}

TEST(MappedFile, EmptyFileMapsToZeroBytes) {
  const MappedFile file(test::write_temp("empty", {}));
  EXPECT_EQ(file.size(), 0u);
  EXPECT_EQ(file.data(), nullptr);
  EXPECT_TRUE(file.bytes().empty());
}

TEST(MappedFile, MissingFileNamesPathAndErrno) {
  test::expect_error([] { MappedFile("/nonexistent/dir/model.bin"); },
                     {"/nonexistent/dir/model.bin: cannot open: No such file or directory"});
}

TEST(MappedFile, DirectoryIsRefused) {
  test::expect_error([] { MappedFile(::testing::TempDir()); }, {"cannot map: it is a directory"});
}

TEST(MappedFile, FifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = test::temp_path("model.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  test::expect_error([&] { MappedFile m(fifo); }, {fifo + ": cannot map: not a regular file (a FIFO)"});
  std::filesystem::remove(fifo);
  test::expect_error([] { MappedFile m("/dev/zero"); }, {"/dev/zero: cannot map: not a regular file (a character device)"});
}

TEST(MappedFile, MoveTransfersTheMapping) {
  MappedFile a(test::write_temp("four", {1, 2, 3, 4}));
  const uint8_t* data = a.data();
  MappedFile b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(a.size(), 0u);
  MappedFile c(test::write_temp("two", {9, 9}));
  c = std::move(b);
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(c.data()[3], 4);
}

// Bytes past one huge page and not a multiple of a page, so the read's last chunk is
// partial.
std::vector<uint8_t> pattern_bytes(size_t n) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  return bytes;
}

TEST(MappedFile, ReadIntoMemoryHoldsTheFilesBytesOnAHugePageBoundary) {
  const std::vector<uint8_t> bytes = pattern_bytes((size_t{2} << 20) + 4097);
  const std::string path = test::write_temp("pattern", bytes);
  const MappedFile file(path, FileResidency::kInMemory);
  EXPECT_EQ(file.residency(), FileResidency::kInMemory);
  ASSERT_EQ(file.size(), bytes.size());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(file.data()) % (uintptr_t{1} << 21), 0u);
  EXPECT_EQ(std::vector<uint8_t>(file.data(), file.data() + file.size()), bytes);
  EXPECT_EQ(MappedFile(path).residency(), FileResidency::kMapped);
}

TEST(MappedFile, ReadIntoMemoryOfAnEmptyFileHoldsZeroBytes) {
  const MappedFile file(test::write_temp("empty", {}), FileResidency::kInMemory);
  EXPECT_EQ(file.size(), 0u);
  EXPECT_EQ(file.data(), nullptr);
}

TEST(MappedFile, ReadIntoMemoryRefusesWhatItWouldNotMap) {
  test::expect_error([] { MappedFile("/nonexistent/dir/model.bin", FileResidency::kInMemory); },
                     {"/nonexistent/dir/model.bin: cannot open: No such file or directory"});
  test::expect_error([] { MappedFile("/dev/zero", FileResidency::kInMemory); },
                     {"/dev/zero: cannot map: not a regular file (a character device)"});
}

TEST(MappedFile, MoveTransfersTheMemoryReadIn) {
  const std::vector<uint8_t> bytes = pattern_bytes(5000);
  MappedFile a(test::write_temp("pattern", bytes), FileResidency::kInMemory);
  const uint8_t* data = a.data();
  MappedFile b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  MappedFile c(test::write_temp("two", {9, 9}));
  c = std::move(b);
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(c.residency(), FileResidency::kInMemory);
  EXPECT_EQ(std::vector<uint8_t>(c.data(), c.data() + c.size()), bytes);
}

}  // namespace
}  // namespace tessera
