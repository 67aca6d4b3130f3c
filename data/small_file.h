// The one way millrace reads a whole small file it is pointed at (a credential, a certificate, a
// kubeconfig, a Job template, an experiment file, a cost model): bounded and regular. A path to
// /dev/zero, a FIFO or a directory is refused before anything is read (a kubeconfig's
// `tokenFile: /dev/zero` read 2.3 GB), and so is a file over the cap, naming the file, what it
// was for and the problem. Large inputs (traces, ranges files) are streamed by
// importers/text_input.h instead.
#pragma once

#include <cstddef>
#include <string>

namespace millrace::data {

inline constexpr std::size_t kMaxCredentialBytes = 1 << 20;  // a token, a certificate, a key
inline constexpr std::size_t kMaxConfigBytes = 8 << 20;      // a kubeconfig, a template, an experiment file

// Throws Error(path, ...) unless `path` is a readable regular file of at most `max_bytes`;
// `what` names its use ("token file").
void check_small_file(const std::string& path, const std::string& what, std::size_t max_bytes);

// The whole content of `path`, checked as check_small_file does (and read no further than
// `max_bytes` + 1, should it grow meanwhile).
std::string read_small_file(const std::string& path, const std::string& what, std::size_t max_bytes);

}  // namespace millrace::data
