#include "data/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "data/error.h"

namespace millrace::data {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Opens `path` (without blocking on a FIFO) and checks what it is; the open descriptor.
int open_checked(const std::string& path, const std::string& what, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(path, "cannot read the " + what + ": " + std::strerror(errno));
  struct stat info {};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const std::string kind = kind_of(info.st_mode);
    ::close(fd);
    throw Error(path, "the " + what + " must be a regular file, this is " + kind);
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    ::close(fd);
    throw Error(path, "the " + what + " is " + std::to_string(info.st_size) + " bytes, over the limit of " +
                          std::to_string(max_bytes));
  }
  return fd;
}

}  // namespace

void check_small_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  ::close(open_checked(path, what, max_bytes));
}

std::string read_small_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  const int fd = open_checked(path, what, max_bytes);
  std::string text;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw Error(path, "cannot read the " + what + ": " + std::strerror(error));
    }
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      throw Error(path, "the " + what + " grew past the limit of " + std::to_string(max_bytes) + " bytes while read");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace millrace::data
