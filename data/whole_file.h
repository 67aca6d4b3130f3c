// Files millrace writes over (a model from `fit -o`, `export -o` and `--nodes`, `partition -o`)
// are written whole or not at all: the text goes to a temporary file beside the target (an
// unnamed one where the filesystem has them, so a killed process leaves nothing behind), is
// flushed to disk and then renamed over the target. A SIGKILL, a full disk or any other failure
// at any point leaves the old file as it was; the target only ever holds the old text or all of
// the new one. A kill between naming the temporary file (.NAME.millrace-PID-N) and the rename
// leaves that file beside the target; the next write of the target removes it once PID is gone. A new file gets the permissions a plain create would give it, a replaced one keeps
// its own.
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>

namespace millrace::data {

class WholeFile {
 public:
  // Opens the temporary file beside `path`; throws Error naming `path` when it cannot (no such
  // directory, a read-only one, a target that is a directory).
  explicit WholeFile(std::string path);
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;
  ~WholeFile();  // discards the temporary file unless commit() succeeded

  // Where the text goes; nothing reaches `path` before commit().
  std::ostream& stream();
  // Flushes the text to disk and puts it in place of `path`; throws Error naming `path` and the
  // problem ("disk is full", ...) when any step fails, the old file then left as it was.
  void commit();

 private:
  class Buffer;
  std::string staged_name(int attempt) const;
  std::string staged_prefix() const;
  void remove_dead_writers_files() const;
  void discard();  // removes a named temporary file

  std::string path_;                // as the user gave it (for messages)
  std::filesystem::path target_;    // the file replaced (a symbolic link followed)
  std::string staged_;              // the temporary file's name once it has one
  bool device_ = false;             // the target is a device or FIFO, written directly
  bool committed_ = false;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// The whole of `text` written to `path` through a WholeFile.
void write_whole_file(const std::string& path, const std::string& text);

}  // namespace millrace::data
