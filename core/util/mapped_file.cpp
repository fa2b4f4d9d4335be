// A whole file read-only in memory, mapped or read; see mapped_file.h.
#include "core/util/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

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

constexpr size_t kHugePage = kit::HugePageMemory::kPageBytes;
constexpr size_t kReadChunk = size_t{1} << 26;  // bytes per pread: a few syscalls per GB
constexpr size_t kMaxReaders = 8;
constexpr uint64_t kNoFailure = UINT64_MAX;

struct ReadFailure {
  uint64_t at = kNoFailure;  // the byte where reading stopped
  int err = 0;               // errno, or 0 where the file ended early
};

// Bytes [begin, end) of the file into base + begin.
ReadFailure read_range(int fd, uint8_t* base, size_t begin, size_t end) {
  size_t done = begin;
  while (done < end) {
    const size_t want = std::min(end - done, kReadChunk);
    const ssize_t got = ::pread(fd, base + done, want, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return {done, errno};
    if (got == 0) return {done, 0};
    done += static_cast<size_t>(got);
  }
  return {};
}

}  // namespace

MappedFile::MappedFile(const std::string& path, FileResidency residency) : path_(path), residency_(residency) {
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

  if (residency == FileResidency::kInMemory) {
    read_into_memory(guard.fd);
    return;
  }
  void* mapped = ::mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_PRIVATE, guard.fd, 0);
  if (mapped == MAP_FAILED) throw_errno(path, "mmap " + std::to_string(size_) + " bytes", errno);
  data_ = static_cast<const uint8_t*>(mapped);
  mapped_ = true;
}

// Memory on huge pages (huge_page_memory.h), filled with pread and then made read-only
// like a mapping.
void MappedFile::read_into_memory(int fd) {
  const size_t bytes = static_cast<size_t>(size_);
  kit::HugePageMemory memory(bytes);
  if (memory.data() == nullptr) throw_errno(path_, "reserve " + std::to_string(bytes) + " bytes of memory for it", errno);
  uint8_t* base = memory.data();
  const size_t rounded = memory.size();
  // Parts of whole huge pages read side by side: one thread copying and taking every page
  // fault alone read a 2.2 GB file in 0.5-4 s here, two in about 0.25 s.
  const size_t pages = rounded / kHugePage;
  const size_t parts = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::min<size_t>(kMaxReaders, pages));
  std::vector<ReadFailure> failures(parts);
  std::vector<std::thread> readers;
  for (size_t p = 1; p < parts; ++p) {
    readers.emplace_back([&, p] { failures[p] = read_range(fd, base, pages * p / parts * kHugePage, std::min(bytes, pages * (p + 1) / parts * kHugePage)); });
  }
  failures[0] = read_range(fd, base, 0, std::min(bytes, pages / parts * kHugePage));
  for (std::thread& t : readers) t.join();
  for (const ReadFailure& f : failures) {
    if (f.at == kNoFailure) continue;
    if (f.err != 0) throw_errno(path_, "read at byte " + std::to_string(f.at), f.err);
    throw Error(path_ + ": cannot read: the file ended at byte " + std::to_string(f.at) + " of " +
                std::to_string(size_) + " (it shrank while being read)");
  }
  memory.make_read_only();  // weights are read-only, as when mapped
  data_ = base;
  memory_ = std::move(memory);
}

MappedFile::~MappedFile() { unmap(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      residency_(other.residency_),
      mapped_(std::exchange(other.mapped_, false)),
      memory_(std::move(other.memory_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    residency_ = other.residency_;
    mapped_ = std::exchange(other.mapped_, false);
    memory_ = std::move(other.memory_);
  }
  return *this;
}

void MappedFile::unmap() noexcept {
  if (mapped_) ::munmap(const_cast<uint8_t*>(data_), static_cast<size_t>(size_));
  mapped_ = false;
  memory_ = kit::HugePageMemory();
  data_ = nullptr;
  size_ = 0;
}

}  // namespace tessera
