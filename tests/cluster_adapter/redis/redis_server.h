// A throwaway redis-server for tests: started on a free loopback port with persistence off,
// ready when it answers PING, killed (and reaped) when the object goes away.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "cluster_adapter/redis/redis_connection.h"
#include "data/error.h"

namespace millrace::testing {

class RedisServer {
 public:
  RedisServer() : port_(free_port()) { start(); }
  ~RedisServer() { stop(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  void start() {
    pid_ = fork();
    if (pid_ == 0) {
      const int quiet = open("/dev/null", O_WRONLY);
      dup2(quiet, STDOUT_FILENO);
      dup2(quiet, STDERR_FILENO);
      const std::string port = std::to_string(port_);
      execlp("redis-server", "redis-server", "--port", port.c_str(), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--loglevel", "warning", static_cast<char*>(nullptr));
      _exit(127);
    }
    cluster_adapter::RedisConnection probe(address(), 200'000);
    for (int i = 0; i < 200; ++i) {
      try {
        probe.command({"PING"});
        return;
      } catch (const data::Error&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
    }
    throw std::runtime_error("redis-server did not start on " + address());
  }

  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  static int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t length = sizeof addr;
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
      close(fd);
      throw std::runtime_error("no free loopback port");
    }
    close(fd);
    return ntohs(addr.sin_port);
  }

  int port_;
  pid_t pid_ = -1;
};

}  // namespace millrace::testing
