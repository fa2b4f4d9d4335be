// Read-only mmap of a whole file; see mapped_file.h.
#include "core/util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/util/error.h"

namespace tessera {
namespace {

[[noreturn]] void throw_errno(const std::string& path, const std::string& action, int err) {
  throw Error(path + ": cannot " + action + ": " + std::strerror(err));
}

// Closes the descriptor when the constructor leaves, mapped or not: the mapping
// stays valid after close().
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, forever.
  FdGuard guard{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (guard.fd < 0) throw_errno(path, "open", errno);

  struct stat st {};
  if (::fstat(guard.fd, &st) != 0) throw_errno(path, "stat", errno);
  if (S_ISDIR(st.st_mode)) throw Error(path + ": cannot map: it is a directory");
  if (!S_ISREG(st.st_mode)) {
    throw Error(path + ": cannot map: not a regular file (" +
                (S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device" : "a special file") + ")");
  }

  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ == 0) return;  // mmap refuses length 0; an empty mapping is just empty

  void* mapped = ::mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_PRIVATE, guard.fd, 0);
  if (mapped == MAP_FAILED) throw_errno(path, "mmap " + std::to_string(size_) + " bytes", errno);
  data_ = static_cast<const uint8_t*>(mapped);
}

MappedFile::~MappedFile() { unmap(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::unmap() noexcept {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
  data_ = nullptr;
  size_ = 0;
}

}  // namespace tessera
