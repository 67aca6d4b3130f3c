// The redaction layer: each kind of credential it knows is masked in the forms it meets them
// (plain text, JSON, an echoed HTTP header block), ordinary text is left as it was, and a
// registered secret is masked wherever it appears; a stream under RedactedStream shows only
// redacted lines, however they are written.
#include "data/redaction.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace millrace::data {
namespace {

TEST(RedactionTest, EachKindOfCredentialIsMasked) {
  const struct {
    const char* text;
    const char* expected;
  } cases[] = {
      {"HTTP 500: Authorization: Bearer eyJhbGciOi.x-y_z\r\nHost: api", "HTTP 500: Authorization: [redacted]\r\nHost: api"},
      {"authorization=Basic dXNlcjpwYXNz; next", "authorization=[redacted]; next"},
      {"Proxy-Authorization: Digest abc", "Proxy-Authorization: [redacted]"},
      {"sent bearer abc123 twice", "sent bearer [redacted] twice"},
      {"https://admin:hunter2@k8s.example:6443/api", "https://admin:[redacted]@k8s.example:6443/api"},
      {"redis://:pw@10.0.0.1:6379", "redis://:[redacted]@10.0.0.1:6379"},
      {R"({"token": "abc", "password":"p w"})", R"({"token": "[redacted]", "password":"[redacted] w"})"},
      {"client-key-data: LS0tLS1CRUdJTg== api_key=k1 lease_token=t1 AWS_SECRET=s",
       "client-key-data: [redacted] api_key=[redacted] lease_token=[redacted] AWS_SECRET=[redacted]"},
      {"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "[redacted]"},
  };
  for (const auto& c : cases) EXPECT_EQ(redact(c.text), c.expected) << c.text;
}

TEST(RedactionTest, TextWithoutCredentialsIsLeftAsItWas) {
  for (const char* text : {"http://127.0.0.1:8642/v1/lease", "run 1: 12/12 items succeeded",
                           R"x({"num_remain": 3, "api": {"reachable": true, "last_error": "HTTP 503 (no response)"}})x",
                           "millrace_kubernetes_api_retries_total 4\nmillrace_items_total{source=\"watch jobs\"} 1\n",
                           "a monkey kept 3 keys; tokens: 5"}) {
    EXPECT_EQ(redact(text), text);
  }
}

// A token file's path ending in "token" masked the next word of the message about it
// ("big_token: [redacted] token file is ..."): a name that ends a path is no field, and a field
// after it is still masked.
TEST(RedactionTest, AFilePathEndingInACredentialNameIsNotTakenForAField) {
  EXPECT_EQ(redact("millrace: /tmp/x/big_token: the token file is 2147483648 bytes, over the limit of 1048576"),
            "millrace: /tmp/x/big_token: the token file is 2147483648 bytes, over the limit of 1048576");
  EXPECT_EQ(redact("'/srv/secrets/api_key': cannot read"), "'/srv/secrets/api_key': cannot read");
  EXPECT_EQ(redact("/var/run/token: token=abc123 and password: p4ss"),
            "/var/run/token: token=[redacted] and password: [redacted]");
  EXPECT_EQ(redact("lease_token: t1"), "lease_token: [redacted]");
  // A URL's query is no path: its credential-named parameters are fields.
  EXPECT_EQ(redact("GET https://api.example/v1/runs?token=abc123 failed"),
            "GET https://api.example/v1/runs?token=[redacted] failed");
  EXPECT_EQ(redact("redis://10.0.0.1:6379/0?db=1&password=p4ss;api_key=k9"),
            "redis://10.0.0.1:6379/0?db=1&password=[redacted];api_key=[redacted]");
}

TEST(RedactionTest, RegisteredSecretsAreMaskedWhereverTheyAppear) {
  register_secret("zq-7f3a9-registered");
  register_secret("ab");  // too short to mask safely: ignored
  EXPECT_EQ(redact("echoed:zq-7f3a9-registered,again zq-7f3a9-registered"), "echoed:[redacted],again [redacted]");
  EXPECT_EQ(redact("ab cab"), "ab cab");
}

TEST(RedactedStreamTest, ALineWrittenInPiecesIsRedactedWhole) {
  std::ostringstream out;
  {
    RedactedStream redacted(out);
    out << "millrace: watch: redis redis://:" << "hunter22" << "@10.0.0.1:" << 6379 << ": cannot connect\n";
    EXPECT_EQ(out.str(), "millrace: watch: redis redis://:[redacted]@10.0.0.1:6379: cannot connect\n");
    out << "Authorization: Bear";
    out << "er abc.def" << std::flush;  // a flush passes on the partial line
    EXPECT_EQ(out.str().substr(out.str().find('\n') + 1), "Authorization: [redacted]");
    out << "\rdone 3/4\rdone 4/4";  // a line redrawn in place shows at once, the last part at the end
    EXPECT_NE(out.str().find("done 3/4\r"), std::string::npos);
    EXPECT_EQ(out.str().find("done 4/4"), std::string::npos);
  }
  EXPECT_NE(out.str().find("done 4/4"), std::string::npos);
  out << " token=plain";  // the stream's own buffer is back: no longer redacted
  EXPECT_NE(out.str().find("token=plain"), std::string::npos);
}

TEST(RedactedStreamTest, APrivateKeyWrittenALineAtATimeIsMaskedWhole) {
  std::ostringstream out;
  {
    RedactedStream redacted(out);
    out << "key:" << std::endl << "-----BEGIN EC PRIVATE KEY-----" << std::endl;
    out << "MHcCAQEEIAbcdefSECRETBODY" << std::endl;
    EXPECT_EQ(out.str(), "key:\n");  // held until the end line
    out << "-----END EC PRIVATE KEY-----" << std::endl << "after\n";
    out << "-----BEGIN PRIVATE KEY-----\nMIIEunfinished\n";  // never ended: masked when the stream closes
  }
  EXPECT_EQ(out.str(), "key:\n[redacted]\nafter\n[redacted]\n");
}

TEST(RedactedStreamTest, LinesFromSeveralThreadsStayWhole) {
  std::ostringstream out;
  {
    RedactedStream redacted(out);
    std::vector<std::thread> writers;
    for (int t = 0; t < 4; ++t) {
      writers.emplace_back([&out, t] {
        for (int i = 0; i < 200; ++i) {
          const std::string line = "thread " + std::to_string(t) + " password=p" + std::to_string(i) + "\n";
          std::streambuf* shared = static_cast<std::ostream&>(out).rdbuf();  // what std::cerr's users share
          shared->sputn(line.data(), static_cast<std::streamsize>(line.size()));
        }
      });
    }
    for (std::thread& w : writers) w.join();
  }
  std::istringstream lines(out.str());
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_NE(line.find(" password=[redacted]"), std::string::npos) << line;
  }
  EXPECT_EQ(count, 800);
}

}  // namespace
}  // namespace millrace::data
