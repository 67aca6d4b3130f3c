// An attempt's exit status kept where it outlives millrace, so that a later session can record
// the real outcome of an attempt that a killed millrace left running (`run --resume --leftovers
// wait`): a leftover is not that session's child, so its exit status cannot be reaped. Every
// local attempt therefore runs its command under a recorder: /bin/sh runs the command in a
// subshell, then writes the command's exit code and a newline to the attempt's status file in
// one write before it exits with that code. The file's modification time is the attempt's end
// (to the file system's timestamp granularity, a few milliseconds). A file without a complete
// line is one whose write has not happened (or the recorder was killed first): no status yet.
// But the shell creates the file only once the command has ended, so a file left empty or cut
// short when the recorder is gone (the disk was full, or it was killed between creating and
// writing) is an attempt that ended with its exit status lost.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/time.h"

namespace millrace::cluster_adapter {

struct RecordedExit {
  int exit_code = 0;
  data::Micros ended = 0;  // wall-clock micros since the epoch
};

// The argv that runs `command` (shell text) under the recorder, its status going to `status_file`
// (which the caller removes beforehand: a file left there would read as this attempt's status).
std::vector<std::string> recorded_command(const std::string& command, const std::string& status_file);

// The exit the recorder wrote to `status_file`; nullopt while it is missing or incomplete.
std::optional<RecordedExit> read_recorded_exit(const std::string& status_file);

// When `status_file` exists without a complete status (empty, cut short): its modification
// time, the attempt's end once its recorder is gone. nullopt when it is missing or complete.
std::optional<data::Micros> status_file_without_exit(const std::string& status_file);

}  // namespace millrace::cluster_adapter
