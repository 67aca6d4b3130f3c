#include "data/whole_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <streambuf>

#include "data/error.h"

namespace millrace::data {

namespace {

namespace fs = std::filesystem;

std::string problem_of(int error) {
  if (error == ENOSPC || error == EDQUOT) return "disk is full";
  if (error == EROFS) return "read-only filesystem";
  return std::strerror(error);
}

[[noreturn]] void fail(const std::string& path, const std::string& step, int error) {
  std::error_code ignored;
  const bool existed = std::filesystem::exists(path, ignored);
  throw Error(path, step + ": " + problem_of(error) + (existed ? "; the file is left as it was" : ""));
}

// The permissions of a plain create (0666 less the umask), or the replaced file's own.
mode_t mode_for(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) return info.st_mode & 07777;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// The PID of a temporary file's name after its prefix ("PID-ATTEMPT", both whole numbers), 0 for
// any other shape.
pid_t writer_of(const std::string& rest) {
  const std::size_t dash = rest.find_first_not_of("0123456789");
  const bool shaped = dash > 0 && dash <= 9 && rest[dash] == '-' &&
                      dash + 1 < rest.size() && rest.find_first_not_of("0123456789", dash + 1) == std::string::npos;
  return shaped ? static_cast<pid_t>(std::stol(rest.substr(0, dash))) : 0;
}

}  // namespace

// A stream buffer over a file descriptor that keeps the first write error (a std::ofstream
// forgets why it failed, and "disk is full" is what the user needs to read).
class WholeFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd) { setp(chunk_.data(), chunk_.data() + chunk_.size()); }
  ~Buffer() override {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    const char* from = pbase();
    while (from < pptr()) {
      const ssize_t n = ::write(fd_, from, static_cast<std::size_t>(pptr() - from));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error_ = errno;
        return false;
      }
      from += n;
    }
    setp(chunk_.data(), chunk_.data() + chunk_.size());
    return true;
  }

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> chunk_{};
};

// A name beside `target` for the new text before it takes the target's place:
// .NAME.millrace-PID-ATTEMPT.
std::string WholeFile::staged_name(int attempt) const {
  return (target_.parent_path() / (staged_prefix() + std::to_string(::getpid()) + "-" + std::to_string(attempt)))
      .string();
}

std::string WholeFile::staged_prefix() const { return "." + target_.filename().string() + ".millrace-"; }

// A writer killed between naming its temporary file and the rename leaves it beside the target;
// the next write of the same target removes those whose process is gone (kill(PID, 0) says no such
// process). A live writer's file, or a name of another shape, is left alone.
void WholeFile::remove_dead_writers_files() const {
  const std::string prefix = staged_prefix();
  std::error_code error;
  for (fs::directory_iterator entry(target_.parent_path(), error), end; !error && entry != end;
       entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const pid_t pid = writer_of(name.substr(prefix.size()));
    if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) ::unlink(entry->path().c_str());
  }
}

WholeFile::WholeFile(std::string path) : path_(std::move(path)) {
  std::error_code ignored;
  // A symbolic link is followed, so the file it points at is replaced and the link stays.
  std::error_code dangling;
  const fs::path followed = fs::is_symlink(path_, ignored) ? fs::canonical(path_, dangling) : fs::path(path_);
  target_ = fs::absolute(dangling ? fs::path(path_) : followed, ignored);
  if (fs::is_directory(target_, ignored)) throw Error(path_, "is a directory, not a file to write");
  const fs::path dir = target_.parent_path();
  const mode_t mode = mode_for(target_);
  int fd = -1;
  if (fs::exists(target_, ignored) && !fs::is_regular_file(target_, ignored)) {
    // A device or a FIFO (-o /dev/stdout) is written as it is: there is no file to replace.
    device_ = true;
    fd = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path_, "cannot open for writing", errno);
  } else {
    remove_dead_writers_files();
    fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    // Filesystems without unnamed files get a named one, removed again unless committed.
    for (int attempt = 0; fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EEXIST); ++attempt) {
      staged_ = staged_name(attempt);
      fd = ::open(staged_.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode);
    }
    if (fd < 0) {
      staged_.clear();
      fail(path_, "cannot write a file in " + dir.string(), errno);
    }
    if (::fchmod(fd, mode) != 0) {
      const int error = errno;
      ::close(fd);
      discard();
      fail(path_, "cannot set the new file's permissions", error);
    }
  }
  buffer_ = std::make_unique<Buffer>(fd);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
}

WholeFile::~WholeFile() {
  stream_.reset();
  buffer_.reset();
  if (!committed_) discard();
}

void WholeFile::discard() {
  if (!staged_.empty()) ::unlink(staged_.c_str());
  staged_.clear();
}

std::ostream& WholeFile::stream() { return *stream_; }

void WholeFile::commit() {
  stream_->flush();
  if (buffer_->error() != 0) fail(path_, "cannot write", buffer_->error());
  if (device_) {
    committed_ = true;
    return;
  }
  if (::fsync(buffer_->fd()) != 0) fail(path_, "cannot write", errno);
  if (staged_.empty()) {
    // The unnamed file gets a name beside the target first.
    const std::string self = "/proc/self/fd/" + std::to_string(buffer_->fd());
    for (int attempt = 0;; ++attempt) {
      staged_ = staged_name(attempt);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, staged_.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
      const int error = errno;
      if (error != EEXIST) {
        staged_.clear();
        fail(path_, "cannot name the new file", error);
      }
    }
  }
  if (::rename(staged_.c_str(), target_.c_str()) != 0) fail(path_, "cannot put the new file in place", errno);
  committed_ = true;
  // The rename itself reaches the disk with the directory.
  const int dir_fd = ::open(target_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

void write_whole_file(const std::string& path, const std::string& text) {
  WholeFile file(path);
  file.stream() << text;
  file.commit();
}

}  // namespace millrace::data
