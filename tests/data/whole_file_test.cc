// Files written over whole or not at all (data/whole_file.h): the new text replaces the old file
// only once it is all on disk, a failure at any point before that (a write error, an exception
// thrown while the text is produced) leaves the old file byte for byte and no temporary file
// behind, a replaced file keeps its permissions and a symbolic link its target.
#include "data/whole_file.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/error.h"
#include "tests/support/scratch_dir.h"

namespace millrace::data {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t entries_in(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(WholeFile, TheNewTextReplacesTheOldFileAndNothingElseIsLeft) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  std::ofstream(path) << "old text";
  const std::string text(3 << 20, 'x');  // larger than the stream's buffer
  write_whole_file(path, text);
  EXPECT_EQ(read_text(path), text);
  EXPECT_EQ(entries_in(scratch.path()), 1u);
  write_whole_file(scratch.file("new.csv"), "a,b\n");
  EXPECT_EQ(read_text(scratch.file("new.csv")), "a,b\n");
}

// A writer SIGKILLed between naming its temporary file and the rename left .NAME.millrace-PID-N
// beside the target for good. The next write of the same target removes those of writers that
// are gone; a live writer's file, another target's and names of another shape stay.
TEST(WholeFile, TheNextWriteRemovesTheTemporaryFilesOfKilledWritersOfTheSameTarget) {
  const test_support::ScratchDir scratch;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    raise(SIGKILL);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  const std::string killed = std::to_string(child);
  const std::string alive = std::to_string(getppid());
  const std::string path = scratch.file("model.json");
  for (const std::string& name : {".model.json.millrace-" + killed + "-0", ".model.json.millrace-" + killed + "-3",
                                  ".model.json.millrace-" + alive + "-0", ".other.json.millrace-" + killed + "-0",
                                  ".model.json.millrace-" + killed, std::string(".model.json.millrace-x-0")}) {
    std::ofstream(scratch.file(name)) << "left";
  }
  write_whole_file(path, "new");
  std::set<std::string> left;
  for (const fs::directory_entry& entry : fs::directory_iterator(scratch.path())) {
    left.insert(entry.path().filename().string());
  }
  EXPECT_EQ(left, (std::set<std::string>{"model.json", ".model.json.millrace-" + alive + "-0",
                                         ".other.json.millrace-" + killed + "-0", ".model.json.millrace-" + killed,
                                         ".model.json.millrace-x-0"}));
  EXPECT_EQ(read_text(path), "new");
}

TEST(WholeFile, TextNotCommittedLeavesTheOldFileAsItWas) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("export.csv");
  std::ofstream(path) << "the old export\n";
  try {
    WholeFile file(path);
    file.stream() << std::string(1 << 20, 'y');
    throw std::runtime_error("the export failed half-way");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(read_text(path), "the old export\n");
  EXPECT_EQ(entries_in(scratch.path()), 1u);
  {
    WholeFile never_written(scratch.file("absent.csv"));
    never_written.stream() << "text";
  }
  EXPECT_FALSE(fs::exists(scratch.file("absent.csv")));
  EXPECT_EQ(entries_in(scratch.path()), 1u);
}

// A write that fails (the file size limit of RLIMIT_FSIZE: EFBIG, as a full disk gives ENOSPC)
// is an Error naming the file and why, and the old file is left as it was. In a child process, so
// the limit stays there.
TEST(WholeFile, AFailedWriteIsAnErrorAndLeavesTheOldFileWhole) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  const std::string old(100'000, 'o');
  std::ofstream(path) << old;
  const std::string message_file = scratch.file("message");
  const pid_t child = fork();
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{200'000, 200'000};
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_whole_file(path, std::string(1 << 20, 'n'));
      _exit(1);
    } catch (const Error& e) {
      std::ofstream(message_file) << e.what();
      _exit(0);
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the write did not fail";
  EXPECT_EQ(read_text(message_file), path + ": cannot write: File too large; the file is left as it was");
  EXPECT_EQ(read_text(path), old);
  EXPECT_EQ(entries_in(scratch.path()), 2u);  // the model and the message: no temporary file
}

TEST(WholeFile, AFullDeviceSaysTheDiskIsFull) {
  try {
    write_whole_file("/dev/full", "text");
    FAIL() << "wrote to /dev/full";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/full: cannot write: disk is full; the file is left as it was");
  }
}

TEST(WholeFile, AReplacedFileKeepsItsPermissionsAndALinkItsTarget) {
  const test_support::ScratchDir scratch;
  const std::string path = scratch.file("model.json");
  std::ofstream(path) << "old";
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_whole_file(path, "new");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const std::string link = scratch.file("latest.json");
  fs::create_symlink(path, link);
  write_whole_file(link, "through the link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text(path), "through the link");
  const mode_t mask = umask(0);
  umask(mask);
  write_whole_file(scratch.file("fresh.json"), "{}");
  EXPECT_EQ(static_cast<mode_t>(fs::status(scratch.file("fresh.json")).permissions() & fs::perms::all), 0666 & ~mask);
}

TEST(WholeFile, AFileThatCannotBeMadeNamesItsPath) {
  const test_support::ScratchDir scratch;
  EXPECT_THROW(
      {
        try {
          write_whole_file(scratch.file("no/such/dir/model.json"), "x");
        } catch (const Error& e) {
          EXPECT_EQ(e.input(), scratch.file("no/such/dir/model.json"));
          EXPECT_THAT(e.problem(), HasSubstr("No such file or directory"));
          throw;
        }
      },
      Error);
  fs::create_directory(scratch.file("a_dir"));
  EXPECT_THROW(write_whole_file(scratch.file("a_dir"), "x"), Error);
}

}  // namespace
}  // namespace millrace::data
