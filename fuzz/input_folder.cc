#include "fuzz/input_folder.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace millrace::fuzz {

InputFolder::InputFolder() {
  const std::string pattern = (std::filesystem::temp_directory_path() / "millrace-fuzz-XXXXXX").string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!mkdtemp(buffer.data())) {
    throw std::system_error(errno, std::generic_category(), "cannot make a folder from " + pattern);
  }
  path_ = buffer.data();
}

InputFolder::~InputFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string InputFolder::write(const std::string& name, std::string_view content) const {
  const std::string file = path_ + "/" + name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out.flush()) throw std::system_error(errno, std::generic_category(), "cannot write " + file);
  return file;
}

}  // namespace millrace::fuzz
