#include "tools/tessera/serve/idle_connections.h"

#include <filesystem>
#include <string>

#include <netinet/in.h>
#include <sys/socket.h>

namespace tessera::serve {
namespace {

// The local port of socket `fd`, or -1 (not an IP socket, or not a socket at all).
int local_port(int fd) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) return -1;
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  return -1;
}

bool is_listening(int fd) {
  int listening = 0;
  socklen_t size = sizeof listening;
  return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0 && listening != 0;
}

}  // namespace

void shut_down_connections(int port) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    if (local_port(fd) == port && !is_listening(fd)) shutdown(fd, SHUT_RDWR);
  }
}

}  // namespace tessera::serve
