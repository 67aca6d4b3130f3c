// A loopback server speaking just enough of the Redis protocol (RESP) to answer what a test
// scripts: each command (an array of bulk strings, as hiredis sends it) is handed to the test's
// function, which returns the raw RESP reply to send, well-formed or not. It lets a test give
// millrace replies of the wrong type, the wrong count or the wrong nesting, which a real
// redis-server never sends.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace millrace::testing {

class FakeRedis {
 public:
  using Answer = std::function<std::string(const std::vector<std::string>& command)>;

  explicit FakeRedis(Answer answer) : answer_(std::move(answer)), listener_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    listen(listener_, 8);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~FakeRedis() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    acceptor_.join();
    std::lock_guard lock(mutex_);
    for (int fd : connections_) shutdown(fd, SHUT_RDWR);
    for (auto& t : servers_) t.join();
  }
  FakeRedis(const FakeRedis&) = delete;
  FakeRedis& operator=(const FakeRedis&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  void accept_loop() {
    while (!stopping_) {
      int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      std::lock_guard lock(mutex_);
      connections_.push_back(fd);
      servers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    std::string buffer;
    for (;;) {
      std::vector<std::string> command;
      std::size_t used = parse(buffer, command);
      if (used == 0) {
        char chunk[4096];
        ssize_t n = recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0) break;
        buffer.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      buffer.erase(0, used);
      std::string reply = answer_(command);
      if (send(fd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) break;
    }
    close(fd);
  }

  // One "*N\r\n$L\r\nARG\r\n..." command from the front of `buffer`; the bytes it took, 0 if
  // it is not complete yet.
  static std::size_t parse(const std::string& buffer, std::vector<std::string>& command) {
    if (buffer.empty() || buffer[0] != '*') return 0;
    std::size_t at = buffer.find("\r\n");
    if (at == std::string::npos) return 0;
    int count = std::stoi(buffer.substr(1, at - 1));
    at += 2;
    for (int i = 0; i < count; ++i) {
      std::size_t line = buffer.find("\r\n", at);
      if (line == std::string::npos || buffer[at] != '$') return 0;
      std::size_t length = std::stoul(buffer.substr(at + 1, line - at - 1));
      if (buffer.size() < line + 2 + length + 2) return 0;
      command.push_back(buffer.substr(line + 2, length));
      at = line + 2 + length + 2;
    }
    return at;
  }

  Answer answer_;
  int listener_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::vector<int> connections_;
  std::vector<std::thread> servers_;
  std::thread acceptor_;
};

}  // namespace millrace::testing
