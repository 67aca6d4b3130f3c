// A crowd of idle clients for the HTTP servers' tests: `count` TCP connections to
// 127.0.0.1:port that connect and never send a byte, closed with the object. Connecting gives up
// after 10 s (non-blocking connect, then poll), so a server that stops accepting shows up as
// fewer connections, not as a hung test.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace millrace::test_support {

class IdleConnections {
 public:
  IdleConnections(int port, int count) {
    for (int i = 0; i < count; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
      if (fd < 0) break;
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(static_cast<std::uint16_t>(port));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
      if (!connected && errno == EINPROGRESS) {
        pollfd writable{fd, POLLOUT, 0};
        int error = 0;
        socklen_t length = sizeof error;
        connected = poll(&writable, 1, 10'000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 &&
                    error == 0;
      }
      if (!connected) {
        close(fd);
        break;
      }
      fds_.push_back(fd);
    }
  }
  ~IdleConnections() {
    for (int fd : fds_) close(fd);
  }
  IdleConnections(const IdleConnections&) = delete;
  IdleConnections& operator=(const IdleConnections&) = delete;

  int connected() const { return static_cast<int>(fds_.size()); }

 private:
  std::vector<int> fds_;
};

}  // namespace millrace::test_support
