// The redaction layer: each kind of credential it knows is masked in the forms it meets them
// (plain text, JSON, an echoed HTTP header block), ordinary text is left as it was, and a
// registered secret is masked wherever it appears.
#include "data/redaction.h"

#include <gtest/gtest.h>

#include <string>

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

TEST(RedactionTest, RegisteredSecretsAreMaskedWhereverTheyAppear) {
  register_secret("zq-7f3a9-registered");
  register_secret("ab");  // too short to mask safely: ignored
  EXPECT_EQ(redact("echoed:zq-7f3a9-registered,again zq-7f3a9-registered"), "echoed:[redacted],again [redacted]");
  EXPECT_EQ(redact("ab cab"), "ab cab");
}

}  // namespace
}  // namespace millrace::data
