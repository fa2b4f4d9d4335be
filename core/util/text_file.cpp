#include "core/util/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/util/error.h"
#include "core/util/format_bytes.h"

namespace tessera {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Opens without blocking (a FIFO with no writer would block a plain open) and checks
// that the descriptor is a regular file; returns its size.
uint64_t open_regular(const std::string& path, Fd& fd) {
  fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd.fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw Error(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    const std::string kind = kind_of(st.st_mode);
    throw Error(path + ": " + (S_ISDIR(st.st_mode) ? "is " + kind : "is not a regular file (" + kind + ")"));
  }
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace

void require_regular_file(const std::string& path) {
  Fd fd;
  open_regular(path, fd);
}

std::string read_text_file(const std::string& path, uint64_t max_bytes, std::string_view what) {
  Fd fd;
  const uint64_t size = open_regular(path, fd);
  if (size > max_bytes) {
    throw Error(path + ": is " + format_bytes(static_cast<double>(size)) + ", more than the " +
                format_bytes(static_cast<double>(max_bytes)) + " " + std::string(what) + " may be");
  }
  std::string text(static_cast<size_t>(size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(path + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;  // the file shrank while being read
    done += static_cast<size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace tessera
