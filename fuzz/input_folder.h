// A private temporary folder for the fuzz entry points that read files by path (importers,
// kubeconfig, cost models): each input is written there before the call, so paths relative to
// it (a kubeconfig's credential files) stay inside it, and it is removed with the object.
#pragma once

#include <string>
#include <string_view>

namespace millrace::fuzz {

class InputFolder {
 public:
  InputFolder();  // under the system's temporary directory ($TMPDIR)
  ~InputFolder();
  InputFolder(const InputFolder&) = delete;
  InputFolder& operator=(const InputFolder&) = delete;

  // Writes `content` as the file `name` in the folder (replacing it) and returns its path.
  std::string write(const std::string& name, std::string_view content) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace millrace::fuzz
