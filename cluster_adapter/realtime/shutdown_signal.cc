#include "cluster_adapter/realtime/shutdown_signal.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

volatile sig_atomic_t g_write_fd = -1;
struct sigaction g_previous_int;
struct sigaction g_previous_term;

extern "C" void on_shutdown_signal(int) {
  int saved = errno;
  char byte = 1;
  if (g_write_fd >= 0 && write(g_write_fd, &byte, 1) < 0) {
    // The pipe is full: a shutdown is already pending, nothing is lost.
  }
  errno = saved;
}

}  // namespace

ShutdownSignal::ShutdownSignal() {
  if (g_write_fd >= 0) throw data::Error("shutdown signal", "a ShutdownSignal is already installed");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw data::Error("shutdown signal", std::string("cannot create self-pipe: ") + std::strerror(errno));
  }
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  g_write_fd = write_fd_;
  struct sigaction action {};
  action.sa_handler = on_shutdown_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

ShutdownSignal::~ShutdownSignal() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  g_write_fd = -1;
  close(read_fd_);
  close(write_fd_);
}

bool ShutdownSignal::requested() {
  char buffer[64];
  while (read(read_fd_, buffer, sizeof buffer) > 0) requested_ = true;
  return requested_;
}

void ShutdownSignal::request() { on_shutdown_signal(SIGINT); }

}  // namespace millrace::cluster_adapter
