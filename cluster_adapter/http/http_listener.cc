#include "cluster_adapter/http/http_listener.h"

#include <httplib.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "data/error.h"

namespace millrace::cluster_adapter {

namespace {

// cpp-httplib's task queue with a thread for every connection at once: a connection that finds
// no idle thread starts one, up to `max_threads` (beyond, it waits for one to come free). Threads
// stay, parked, until the server stops (a parked thread costs a few pages of stack).
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(std::size_t max_threads) : max_threads_(max_threads) {}

  void enqueue(std::function<void()> serve) override {
    std::lock_guard lock(mutex_);
    waiting_.push_back(std::move(serve));
    if (waiting_.size() > idle_ && threads_.size() < max_threads_) threads_.emplace_back([this] { run(); });
    arrived_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    arrived_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      arrived_.wait(lock, [this] { return !waiting_.empty() || stopping_; });
      --idle_;
      if (waiting_.empty()) return;  // stopping, nothing left to serve
      std::function<void()> serve = std::move(waiting_.front());
      waiting_.pop_front();
      lock.unlock();
      serve();
      lock.lock();
    }
  }

  const std::size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::function<void()>> waiting_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

// Raises the soft limit of open files to the hard one (once): every connection held is a
// descriptor, and the usual soft limit of 1,024 would stop accept() with 1,000 idle clients.
void allow_open_files() {
  static const bool raised = [] {
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur >= files.rlim_max) return false;
    files.rlim_cur = files.rlim_max;
    return setrlimit(RLIMIT_NOFILE, &files) == 0;
  }();
  (void)raised;
}

}  // namespace

HttpListener::HttpListener(httplib::Server& server, const std::string& host, int port, const HttpLimits& limits)
    : server_(server) {
  allow_open_files();
  const auto threads = static_cast<std::size_t>(limits.threads);
  server_.new_task_queue = [threads] { return new ConnectionThreads(threads); };
  server_.set_payload_max_length(limits.max_body);
  server_.set_read_timeout(std::chrono::microseconds(limits.read_timeout));
  server_.set_write_timeout(std::chrono::microseconds(limits.write_timeout));
  server_.set_keep_alive_timeout(static_cast<time_t>((limits.keep_alive_timeout + data::kMicrosPerSecond - 1) /
                                                     data::kMicrosPerSecond));
  server_.set_keep_alive_max_count(static_cast<std::size_t>(limits.keep_alive_requests));
  server_.set_tcp_nodelay(true);
  // httplib's default sets SO_REUSEPORT, which would let two servers share a port silently.
  auto listening = std::make_shared<int>(-1);
  server_.set_socket_options([listening](int socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    *listening = socket;
  });
  const std::string address = "http://" + host + ":" + std::to_string(port);
  port_ = port == 0 ? server_.bind_to_any_port(host) : (server_.bind_to_port(host, port) ? port : -1);
  if (port_ < 0) throw data::Error(address, "cannot bind (port in use or not permitted)");
  // httplib listens with a backlog of 5: a burst of connections beyond it waits for SYN retries
  // (1 s, 3 s, ...). Listening again sets the system's maximum.
  if (*listening >= 0) ::listen(*listening, SOMAXCONN);
  auto listening_ended = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([this, listening_ended] {
    server_.listen_after_bind();
    *listening_ended = true;
  });
  // httplib's stop() does nothing before the server runs: wait until it does.
  while (!server_.is_running() && !*listening_ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

HttpListener::~HttpListener() {
  server_.stop();
  thread_.join();
}

}  // namespace millrace::cluster_adapter
