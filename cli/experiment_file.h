// Experiment files: `millrace compare -f FILE` and `millrace plan -f FILE` read their settings
// from a YAML file whose keys are the command's own long option names (`store`, `model`,
// `workers`, `range-length`, ...). The file's values go through the very options the command line
// fills (their CLI11 definitions, checks and conversions), so there is one mapping from keys to
// the commands' option structs, and an option added to a command is a key at once. Options given
// on the command line override the file.
//
// A top-level mapping named after a command that reads experiment files (`compare:`, `plan:`)
// holds keys only that command takes: it applies when that command runs, and is checked (not
// applied) when the other one does, so one file serves both. A key at the top level and in the
// running command's section is an error. Values: a scalar; a list, joined with commas for a
// single-value option (`workers: [96, 192]`) or one value per item for a repeatable one; a
// mapping for a repeatable option, one NAME=VALUE per entry (`ranges: {theirs: out/theirs.txt}`);
// true or false for a flag. Paths are read from the working directory, as on the command line.
// Unknown keys, values of the wrong shape or refused by the option, and required options given
// neither in the file nor on the command line are errors naming FILE:LINE:COLUMN and the key.
#pragma once

#include <CLI/CLI.hpp>

#include "sim/comparison_store.h"

namespace millrace::cli {

// Adds `-f,--file` to `command`; add it before the command's other options (so the file is read
// before any of them is converted). When given, the file's text, SHA-256 and the options given on
// the command line beside it are kept in `experiment`, to be stored with the results.
void add_experiment_file_option(CLI::App* command, sim::ExperimentSource& experiment);

// Hex SHA-256 of `text`.
std::string sha256_hex(const std::string& text);

}  // namespace millrace::cli
