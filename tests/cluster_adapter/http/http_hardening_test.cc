// The run's HTTP servers against clients that misbehave (shown on the status server; the lease
// server shares its listener, see lease_server_test.cc for its bodies and token): slow clients
// that trickle a request forever do not keep /status from answering, one keep-alive connection
// is served request after request (cpp-httplib's default closed it after 5), a request body
// over the limit is refused with 413, and what is published passes the redaction layer.
// No timing is asserted: the waits below are generous hang guards.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cluster_adapter/http/status_server.h"
#include "data/redaction.h"
#include "tests/support/idle_connections.h"

namespace millrace::cluster_adapter {
namespace {

// A TCP connection to 127.0.0.1:port, closed with the object (-1 when it cannot connect).
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool send_text(const std::string& text) {
    return fd_ >= 0 && ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // Reads one answer with a Content-Length body; empty when the connection ended or timed out.
  std::string read_answer() {
    for (;;) {
      auto head_end = buffer_.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        auto length_at = buffer_.find("Content-Length: ");
        std::size_t length = length_at < head_end ? std::stoul(buffer_.substr(length_at + 16)) : 0;
        if (buffer_.size() >= head_end + 4 + length) {
          std::string answer = buffer_.substr(0, head_end + 4 + length);
          buffer_.erase(0, answer.size());
          return answer;
        }
      }
      char chunk[4096];
      ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
      if (n <= 0) return "";
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

class HttpHardeningTest : public ::testing::Test {
 protected:
  HttpHardeningTest() : server_(0) { server_.publish({R"({"num_remain": 3})", "millrace_items_total 3\n"}); }
  StatusServer server_;
};

// Eight clients each send half a request and then a header line every 200 ms, for as long as
// the test lasts: each holds a server thread (cpp-httplib's default pool here had 8, so /status
// waited behind them until the client gave up). /status must still answer.
TEST_F(HttpHardeningTest, EightSlowClientsDoNotKeepStatusFromAnswering) {
  std::atomic<bool> done{false};
  std::vector<std::thread> slow;
  std::atomic<int> connected{0};
  for (int i = 0; i < 8; ++i) {
    slow.emplace_back([&, port = server_.port()] {
      RawConnection connection(port);
      if (!connection.send_text("GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n")) return;
      ++connected;
      while (!done && connection.send_text("X-Slow: a\r\n")) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    });
  }
  for (int i = 0; i < 100 && connected < 8; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the server has taken them in
  httplib::Client client("127.0.0.1", server_.port());
  client.set_read_timeout(std::chrono::seconds(10));
  client.set_connection_timeout(std::chrono::seconds(10));
  auto answer = client.Get("/status");
  done = true;
  for (auto& t : slow) t.join();
  EXPECT_EQ(connected, 8);
  ASSERT_TRUE(answer) << "no answer while 8 slow clients held connections: " << httplib::to_string(answer.error());
  EXPECT_EQ(answer->status, 200);
  EXPECT_EQ(answer->body, R"({"num_remain": 3})");
}

// 1,000 clients connect and send nothing (one local process: this one). Each used to take one
// of the server's 32 threads for the 5 s keep-alive wait, so /status queued behind them for
// (1,000 / 32) x 5 s; now every connection gets its own thread at once and /status answers
// while they are all held. The client's own 10 s timeout is the only bound.
TEST_F(HttpHardeningTest, AThousandIdleConnectionsDoNotKeepStatusFromAnswering) {
  test_support::IdleConnections crowd(server_.port(), 1000);
  EXPECT_EQ(crowd.connected(), 1000);
  httplib::Client client("127.0.0.1", server_.port());
  client.set_read_timeout(std::chrono::seconds(10));
  client.set_connection_timeout(std::chrono::seconds(10));
  for (const char* path : {"/status", "/metrics", "/"}) {
    auto answer = client.Get(path);
    ASSERT_TRUE(answer) << path << ": no answer while 1,000 idle connections were held: "
                        << httplib::to_string(answer.error());
    EXPECT_EQ(answer->status, 200) << path;
  }
  EXPECT_EQ(client.Get("/status")->body, R"({"num_remain": 3})");
}

// 300 requests on one keep-alive connection are all answered on it (the default closed the
// connection after 5). How fast goes to the test's output, not into an assertion.
TEST_F(HttpHardeningTest, OneKeepAliveConnectionServesManyRequests) {
  RawConnection connection(server_.port());
  const auto start = std::chrono::steady_clock::now();
  int answered = 0;
  for (int i = 0; i < 300; ++i) {
    if (!connection.send_text("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) break;
    std::string answer = connection.read_answer();
    if (answer.rfind("HTTP/1.1 200", 0) != 0 || answer.find("millrace_items_total 3") == std::string::npos) break;
    ++answered;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("keep_alive_requests_per_second", std::to_string(static_cast<int>(answered / seconds)));
  EXPECT_EQ(answered, 300);
}

TEST_F(HttpHardeningTest, RequestBodyOverTheLimitIsRefusedWith413) {
  httplib::Client client("127.0.0.1", server_.port());
  auto answer = client.Post("/status", std::string(1024 * 1024, 'x'), "application/octet-stream");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 413);
  auto after = client.Get("/status");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

// What the run publishes may quote its cluster's API; the server shows it redacted.
TEST_F(HttpHardeningTest, PublishedDocumentsAreRedacted) {
  data::register_secret("s3cr3t-registered-token");
  server_.publish({R"({"last_error": "HTTP 500: echo: Authorization: Bearer abc.def.ghi\r\nHost: x", )"
                   R"("server": "https://admin:hunter22@k8s.example:6443", "other": "s3cr3t-registered-token"})",
                   "millrace_up{server=\"https://admin:hunter22@k8s\"} 1\n"});
  httplib::Client client("127.0.0.1", server_.port());
  auto status = client.Get("/status");
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(status && metrics);
  for (const std::string& body : {status->body, metrics->body}) {
    for (const char* secret : {"abc.def.ghi", "hunter22", "s3cr3t-registered-token"}) {
      EXPECT_EQ(body.find(secret), std::string::npos) << secret << " in " << body;
    }
  }
  EXPECT_NE(status->body.find("Authorization: [redacted]"), std::string::npos) << status->body;
  EXPECT_NE(status->body.find("https://admin:[redacted]@k8s.example:6443"), std::string::npos) << status->body;
}

}  // namespace
}  // namespace millrace::cluster_adapter
