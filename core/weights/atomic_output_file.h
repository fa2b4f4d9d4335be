// A file written under a temporary name (PATH.tmp) and renamed over PATH only when
// complete, so a crash or an I/O error never leaves a half-written file at PATH.
#pragma once

#include <cstdint>
#include <string>

namespace tessera {

class AtomicOutputFile {
 public:
  // Creates PATH.tmp (truncating a leftover one). Throws tessera::Error naming the
  // file and the system's reason (missing or unwritable directory, ...).
  explicit AtomicOutputFile(const std::string& path);
  // Without commit(): closes and removes PATH.tmp; PATH is left untouched.
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  // Appends bytes; throws on failure (disk full, file size limit, ...).
  void write(const void* data, uint64_t n);
  // Appends zero bytes up to file offset `offset` (>= written()).
  void pad_to(uint64_t offset);
  uint64_t written() const { return written_; }
  // Flushes to disk, closes, and renames PATH.tmp to PATH.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  [[noreturn]] void fail(const std::string& action, int err) const;

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  uint64_t written_ = 0;
};

}  // namespace tessera
