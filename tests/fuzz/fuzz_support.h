// What the fuzz targets of this folder share: the input as a file the weight readers can
// map, the test data's location, and the check that turns a broken promise into a crash
// libFuzzer records.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace tessera::fuzz {

// Aborts (a crash for libFuzzer, with the input saved) when `ok` is false: for results
// that are wrong without crashing, such as a tensor view outside its file.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

// The element count of `shape` (0 when a dimension is 0); aborts on a negative dimension
// or a count that overflows 64 bits, which a reader must have refused.
inline int64_t element_count(const std::vector<int64_t>& shape) {
  for (const int64_t d : shape) {
    require(d >= 0, "a tensor dimension is negative");
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (const int64_t d : shape) require(!__builtin_mul_overflow(n, d, &n), "a tensor's element count overflows");
  return n;
}

// One in-memory file (memfd: no disk), rewritten for each input; the readers open it by
// its /proc/self/fd path like any other file.
class InputFile {
 public:
  InputFile() : fd_(::memfd_create("fuzz-input", MFD_CLOEXEC)) {
    require(fd_ >= 0, "memfd_create failed");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the contents with `size` bytes and returns the path to open.
  const std::string& write(const uint8_t* data, size_t size) {
    require(::ftruncate(fd_, 0) == 0, "ftruncate failed");
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      require(n > 0, "pwrite failed");
      done += static_cast<size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

// ../shared/testdata, or $TESSERA_TESTDATA (as the tests find it).
inline std::string testdata_path(const std::string& relative) {
  const char* env = std::getenv("TESSERA_TESTDATA");
  const std::filesystem::path root = (env && *env) ? env : TESSERA_TESTDATA_DEFAULT;
  return (root / relative).string();
}

inline std::string source_path(const std::string& relative) {
  return (std::filesystem::path(TESSERA_SOURCE_DIR) / relative).string();
}

}  // namespace tessera::fuzz
