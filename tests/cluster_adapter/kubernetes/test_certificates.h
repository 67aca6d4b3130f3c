// Certificates for the TLS tests, made at test time with the openssl command-line tool into a
// folder: a CA, a server certificate for 127.0.0.1 and a client certificate (CN tester) it
// signed, and a second CA that signed neither (the wrong CA). P-256 keys, valid two days.
#pragma once

#include <openssl/evp.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

namespace millrace::cluster_adapter {

struct TestCertificates {
  std::filesystem::path dir;
  std::string ca;
  std::string server_certificate;
  std::string server_key;
  std::string client_certificate;
  std::string client_key;
  std::string wrong_ca;

  static TestCertificates make(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    TestCertificates c;
    c.dir = dir;
    auto path = [&](const std::string& name) { return (dir / name).string(); };
    c.ca = path("ca.crt");
    c.server_certificate = path("server.crt");
    c.server_key = path("server.key");
    c.client_certificate = path("client.crt");
    c.client_key = path("client.key");
    c.wrong_ca = path("wrong-ca.crt");
    std::ofstream(path("server.ext")) << "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n";
    std::ofstream(path("client.ext")) << "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n";
    const std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    auto make_ca = [&](const std::string& name, const std::string& subject) {
      run("openssl req -x509" + key + " -keyout " + path(name + ".key") + " -out " + path(name + ".crt") +
          " -subj /CN=" + subject + " -days 2");
    };
    auto make_signed = [&](const std::string& name, const std::string& subject) {
      run("openssl req" + key + " -keyout " + path(name + ".key") + " -out " + path(name + ".csr") + " -subj /CN=" +
          subject);
      run("openssl x509 -req -in " + path(name + ".csr") + " -CA " + c.ca + " -CAkey " + path("ca.key") +
          " -CAcreateserial -out " + path(name + ".crt") + " -days 2 -extfile " + path(name + ".ext"));
    };
    make_ca("ca", "millrace-test-ca");
    make_ca("wrong-ca", "someone-else");
    make_signed("server", "127.0.0.1");
    make_signed("client", "tester");
    return c;
  }

  // The file's bytes in base64, as a kubeconfig's *-data fields hold them.
  static std::string base64_of(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    std::string raw = bytes.str();
    std::vector<unsigned char> out(4 * ((raw.size() + 2) / 3) + 1);
    int n = EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(raw.size()));
    return std::string(reinterpret_cast<const char*>(out.data()), n);
  }

 private:
  static void run(const std::string& command) {
    if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) {
      throw std::runtime_error("test certificates: failed: " + command);
    }
  }
};

}  // namespace millrace::cluster_adapter
