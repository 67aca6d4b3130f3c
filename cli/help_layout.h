// The layout of `millrace --help` and of every subcommand's --help, through CLI11's own option
// groups, footers and formatter: each command's options in named groups (what to simulate, the
// cluster, the model, output), in the order the command lists them, and two or three worked
// examples after them; the value an option takes named once, as its check describes it
// ("INT>=1", "{on,off}"; not "INT:INT 1 to 2305843009213693952"); a default said at the end of its
// option's line unless the option's own text already says what its default is (`--order`'s
// default depends on the recording: the captured "plan" would contradict it); and every line
// under kHelpWidth characters, descriptions wrapped at word boundaries.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace millrace::cli {

// The widest line --help prints.
inline constexpr std::size_t kHelpWidth = 99;

// Group titles more than one command shares (shared option modules put their options in them).
inline constexpr const char* kModelGroup = "The model";
inline constexpr const char* kClusterGroup = "The cluster";
inline constexpr const char* kFailuresGroup = "Failures and retries";
inline constexpr const char* kOutputGroup = "Output";

struct HelpGroup {
  std::string title;                 // "What to simulate", "The cluster", "The model", "Output"
  std::vector<std::string> options;  // each by one of its names as declared ("--store", "-o", "run")
};

struct HelpExample {
  std::string what;          // what it does, a comment line above it
  std::string command_line;  // "millrace simulate --store out/t.db --run pcv2 --workers 192"
};

// The formatter of `app` and of the subcommands added to it afterwards: call before adding them.
void use_help_layout(CLI::App& app);

// Puts each option `group` names in it (what a shared option module does with the options it adds).
// Throws std::logic_error naming the command and the option when a name is not one of its options.
void put_in_group(CLI::App& command, const HelpGroup& group);

// Puts each named option of `command` in its group; the groups print in this order. Throws
// std::logic_error naming the command and the option when a name is not one of its options (the
// layout out of step with the options is a programming error every test run meets).
void set_help_groups(CLI::App& command, const std::vector<HelpGroup>& groups);

// Prints `examples` after the command's options, each under a comment saying what it does.
void set_help_examples(CLI::App& command, const std::vector<HelpExample>& examples);

// Puts each named subcommand of `app` in its group (HelpGroup::options are command names here);
// the groups print in the order their first command was added. Throws std::logic_error for a name
// that is not a subcommand of `app`.
void set_command_groups(CLI::App& app, const std::vector<HelpGroup>& groups);

// The option group CLI11 gives an option no layout named ("Options"; --help stays there).
inline constexpr const char* kUngroupedOptions = "Options";

}  // namespace millrace::cli
