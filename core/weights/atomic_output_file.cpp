// Write-to-temp-then-rename output; see atomic_output_file.h.
#include "core/weights/atomic_output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/util/error.h"

namespace tessera {

AtomicOutputFile::AtomicOutputFile(const std::string& path)
    : path_(path), temp_path_(path + ".tmp") {
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("create '" + temp_path_ + "'", errno);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_path_.c_str());
  }
}

void AtomicOutputFile::fail(const std::string& action, int err) const {
  throw Error(path_ + ": cannot " + action + ": " + std::strerror(err));
}

void AtomicOutputFile::write(const void* data, uint64_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t done = ::write(fd_, p, n);
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) fail("write '" + temp_path_ + "' at byte " + std::to_string(written_), errno);
    if (done == 0) fail("write '" + temp_path_ + "' at byte " + std::to_string(written_), ENOSPC);
    p += done;
    n -= static_cast<uint64_t>(done);
    written_ += static_cast<uint64_t>(done);
  }
}

void AtomicOutputFile::pad_to(uint64_t offset) {
  static const std::vector<uint8_t> kZeros(4096, 0);
  while (written_ < offset) {
    write(kZeros.data(), std::min<uint64_t>(offset - written_, kZeros.size()));
  }
}

void AtomicOutputFile::commit() {
  if (::fsync(fd_) != 0) fail("flush '" + temp_path_ + "' to disk", errno);
  const int fd = fd_;
  fd_ = -1;  // from here on the destructor must not close it again
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp_path_.c_str());
    fail("close '" + temp_path_ + "'", err);
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp_path_.c_str());
    fail("rename '" + temp_path_ + "' to '" + path_ + "'", err);
  }
}

}  // namespace tessera
