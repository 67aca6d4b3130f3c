// The command line itself, end to end through the binary and on its modules: `millrace --version`
// says the project's version (read here from CMakeLists.txt); a misspelt command or option is
// answered with the one meant, or with the list to choose from; every command's --help has its
// options in named groups, examples, defaults that say what they are, no validator noise, and
// every line under 100 characters. And the modules: nearest_name's reach and ties, and a help
// layout naming an option the command lacks is refused.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/did_you_mean.h"
#include "cli/help_layout.h"
#include "tests/cli/cli_runner.h"

namespace millrace::cli {
namespace {

using test_support::run_cli;

// Every subcommand, as a user finds them in `millrace --help` (checked against that list below).
const std::vector<std::string> kCommands = {"import", "runs",    "show", "export",  "report", "fit",  "partition",
                                            "simulate", "compare", "plan", "run", "push",   "watch"};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// An option's entry in a help text: from its line to the next option's (or heading's).
std::string option_entry(const std::string& help, const std::string& option) {
  const std::size_t from = help.find("\n  " + option + " ");
  if (from == std::string::npos) return "";
  const std::size_t next = help.find("\n  -", from + 1);
  return help.substr(from + 1, next == std::string::npos ? std::string::npos : next - from);
}

// The lines under the heading `title:` up to the next blank line.
std::vector<std::string> section(const std::string& help, const std::string& title) {
  std::vector<std::string> found;
  bool inside = false;
  for (const std::string& line : lines_of(help)) {
    if (line == title + ":") {
      inside = true;
    } else if (inside && line.empty()) {
      break;
    } else if (inside) {
      found.push_back(line);
    }
  }
  return found;
}

TEST(CommandLine, VersionIsTheProjectVersionFromCMakeLists) {
  std::ifstream cmake(std::string(MILLRACE_SOURCE_DIR) + "/CMakeLists.txt");
  std::stringstream text;
  text << cmake.rdbuf();
  std::smatch match;
  const std::string cmake_text = text.str();
  ASSERT_TRUE(std::regex_search(cmake_text, match, std::regex(R"(project\(millrace VERSION ([0-9.]+))")));
  const auto version = run_cli("--version");
  EXPECT_EQ(version.exit_code, 0) << version.output;
  const std::vector<std::string> lines = lines_of(version.output);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "millrace " + match[1].str());
  ASSERT_LE(lines.size(), 2u) << version.output;
  if (lines.size() == 2) {
    EXPECT_TRUE(std::regex_match(lines[1], std::regex(R"(source: git [0-9A-Za-z._-]+ \(when the build was configured\))")))
        << lines[1];
  }
}

TEST(CommandLine, AMisspeltCommandIsAnsweredWithTheOneMeant) {
  for (const auto& [typed, meant] : std::vector<std::pair<std::string, std::string>>{
           {"simulat", "simulate"}, {"simualte", "simulate"}, {"compre", "compare"}, {"imprt", "import"}}) {
    const auto result = run_cli(typed + " --store x.db");
    EXPECT_EQ(result.exit_code, 1) << typed;
    EXPECT_EQ(result.output, "millrace: unknown command '" + typed + "'; did you mean '" + meant +
                                 "'? (see millrace --help)\n");
  }
}

TEST(CommandLine, ACommandNothingIsNearListsTheCommands) {
  const auto result = run_cli("frobnicate");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("millrace: unknown command 'frobnicate'; the commands are import, runs,"),
            std::string::npos)
      << result.output;
  for (const std::string& command : kCommands) EXPECT_NE(result.output.find(command), std::string::npos) << command;
  const auto none = run_cli("");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("millrace: name a command: import, runs,"), std::string::npos) << none.output;
}

TEST(CommandLine, AMisspeltOptionIsAnsweredWithTheOneMeant) {
  const auto worker = run_cli("simulate --store x.db --run r --worker 3");
  EXPECT_EQ(worker.exit_code, 1);
  EXPECT_EQ(worker.output,
            "millrace: simulate: unknown option --worker; did you mean --workers? (see millrace simulate --help)\n");
  const auto json = run_cli("compare --jsn");
  EXPECT_NE(json.output.find("compare: unknown option --jsn; did you mean --json?"), std::string::npos) << json.output;
  const auto with_value = run_cli("plan --dedline=24h");
  EXPECT_NE(with_value.output.find("plan: unknown option --dedline; did you mean --deadline?"), std::string::npos)
      << with_value.output;
  const auto far = run_cli("runs --store x.db --colour");
  EXPECT_EQ(far.exit_code, 1);
  EXPECT_EQ(far.output, "millrace: runs: unknown option --colour (see millrace runs --help)\n");
}

TEST(CommandLine, TheTopLevelHelpListsEveryCommandInGroups) {
  const auto help = run_cli("--help");
  EXPECT_EQ(help.exit_code, 0);
  std::set<std::string> listed;
  for (const std::string& line : lines_of(help.output)) {
    std::smatch match;
    if (std::regex_match(line, match, std::regex(R"(  ([a-z]+) +\S.*)")) && match[1] != "millrace") {
      listed.insert(match[1]);
    }
  }
  EXPECT_EQ(listed, std::set<std::string>(kCommands.begin(), kCommands.end())) << help.output;
  EXPECT_EQ(help.output.find("\nSubcommands:\n"), std::string::npos) << "every command in a named group";
  EXPECT_NE(help.output.find("--version"), std::string::npos);
}

TEST(CommandLine, EveryHelpIsGroupedWithExamplesAndLinesUnder100Characters) {
  std::vector<std::string> commands = kCommands;
  commands.push_back("");  // millrace --help
  for (const std::string& command : commands) {
    const auto help = run_cli(command + " --help");
    SCOPED_TRACE("millrace " + command + " --help");
    EXPECT_EQ(help.exit_code, 0) << help.output;
    for (const std::string& line : lines_of(help.output)) {
      EXPECT_LT(line.size(), 100u) << line;
    }
    // A check's whole range (INT:INT 1 to 2305843009213693952) is no help.
    EXPECT_EQ(help.output.find(":INT"), std::string::npos) << help.output;
    EXPECT_EQ(help.output.find("2305843009213693952"), std::string::npos) << help.output;
    EXPECT_EQ(help.output.find("18446744073709551615"), std::string::npos) << help.output;
    // Examples: two or three, each a millrace command line under a comment.
    const std::vector<std::string> examples = section(help.output, "Examples");
    int example_lines = 0;
    for (const std::string& line : examples) example_lines += line.starts_with("  millrace ");
    EXPECT_GE(example_lines, 2) << help.output;
    EXPECT_LE(example_lines, 3) << help.output;
    // Every option in a named group: the unnamed one holds only --help (and --version at the top).
    for (const std::string& line : section(help.output, kUngroupedOptions)) {
      if (line.starts_with("  -")) {
        EXPECT_TRUE(line.starts_with("  -h,--help") || line.starts_with("  --version")) << line;
      }
    }
  }
}

TEST(CommandLine, DefaultsSayWhatTheyAre) {
  // plan's queue order defaults to the recording's (tip-first for a tip-first recording), not to
  // the "plan" its variable starts at.
  const std::string order = option_entry(run_cli("plan --help").output, "--order");
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order.find("=plan"), std::string::npos) << order;
  EXPECT_EQ(order.find("(default: plan)"), std::string::npos) << order;
  std::string flowed = std::regex_replace(order, std::regex(R"(\s+)"), " ");
  EXPECT_NE(flowed.find("tip-first when --run's ranges were handed out tip first"), std::string::npos) << order;
  // A default shown is the value the option takes, in words after its description: simulate's
  // capacity and order follow --run's recording and --preset's deployment before the value its
  // variable starts at (its help said "(default: 64)" and "(default: plan)" alone).
  const auto simulate = run_cli("simulate --help");
  const std::string workers = option_entry(simulate.output, "--workers");
  EXPECT_TRUE(workers.starts_with("  --workers INT>=1 ")) << workers;
  const auto flow = [](const std::string& entry) { return std::regex_replace(entry, std::regex(R"(\s+)"), " "); };
  EXPECT_NE(flow(workers).find("(default: --run's as recorded, --preset's, else 64)"), std::string::npos) << workers;
  const std::string policy = option_entry(simulate.output, "--policy");
  EXPECT_NE(flow(policy).find("(default: --run's as recorded, --preset's, else fixed-pool)"), std::string::npos)
      << policy;
  const std::string simulated_order = option_entry(simulate.output, "--order");
  EXPECT_NE(flow(simulated_order).find("(default: --preset's, else plan)"), std::string::npos) << simulated_order;
  EXPECT_NE(simulate.output.find("--fail-prob NUMBER 0..1"), std::string::npos) << simulate.output;
  EXPECT_NE(simulate.output.find("--seed SEED"), std::string::npos) << simulate.output;
  EXPECT_NE(simulate.output.find("--noise {on,off}"), std::string::npos) << simulate.output;
}

TEST(NearestName, AcceptsOneSlipInFourCharactersAndAUniqueBeginning) {
  const std::vector<std::string> names = {"simulate", "show", "compare", "plan", "partition", "run", "runs"};
  EXPECT_EQ(nearest_name("simulat", names), "simulate");   // a deletion
  EXPECT_EQ(nearest_name("simmulate", names), "simulate");  // an insertion
  EXPECT_EQ(nearest_name("simulade", names), "simulate");   // a substitution
  EXPECT_EQ(nearest_name("smiulate", names), "simulate");   // neighbours swapped
  EXPECT_EQ(nearest_name("sim", names), "simulate");        // the only name it begins
  EXPECT_EQ(nearest_name("parti", names), "partition");
  EXPECT_EQ(nearest_name("smlt", names), std::nullopt);     // two slips in four characters
  EXPECT_EQ(nearest_name("p", names), std::nullopt);        // begins plan and partition
  EXPECT_EQ(nearest_name("xyz", names), std::nullopt);
  EXPECT_EQ(nearest_name("", names), std::nullopt);
  EXPECT_EQ(nearest_name("rnus", names), "runs");           // one slip from runs, two from run
}

TEST(NearestName, ComparesOptionsWithoutTheirDashesAndRefusesTies) {
  const std::vector<std::string> options = {"--workers", "--min-workers", "--store", "--model", "--node", "--nodes"};
  EXPECT_EQ(nearest_name("--worker", options), "--workers");
  EXPECT_EQ(nearest_name("--stor", options), "--store");
  EXPECT_EQ(nearest_name("--mode", options), "--model") << "one slip from --node too, but it begins only --model";
  EXPECT_EQ(nearest_name("--stare", {"--store", "--stage"}), std::nullopt) << "both one slip away";
}

TEST(HelpLayout, ALayoutNamingAnOptionTheCommandLacksIsRefused) {
  CLI::App app{"test"};
  CLI::App* command = app.add_subcommand("simulate", "");
  int workers = 0;
  command->add_option("--workers", workers, "");
  try {
    set_help_groups(*command, {{"The cluster", {"--workers", "--wokers"}}});
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "help layout of `simulate`: it has no option --wokers");
  }
  EXPECT_THROW(set_command_groups(app, {{"What-ifs", {"simulat"}}}), std::logic_error);
}

TEST(HelpLayout, LongDescriptionsWrapInTheirColumnAndLongExamplesContinueOnTheNextLine) {
  CLI::App app{"test"};
  use_help_layout(app);
  CLI::App* command = app.add_subcommand("try", "");
  std::string value = "start";
  std::string description;
  for (int i = 0; i < 40; ++i) description += "words ";
  command->add_option("--a-rather-long-option-name-indeed", value, description)->capture_default_str();
  set_help_groups(*command, {{"Group", {"--a-rather-long-option-name-indeed"}}});
  set_help_examples(*command, {{"what", "millrace try " + std::string(60, 'a') + " " + std::string(60, 'b')},
                               {"quoted", "millrace try " + std::string(70, 'c') + " --command 'x {first} {count}'"}});
  const std::string help = command->help();
  for (const std::string& line : lines_of(help)) EXPECT_LT(line.size(), 100u) << line;
  // The name reaches into the description's column: the description starts below it, and ends
  // with the default.
  EXPECT_NE(help.find("Group:\n  --a-rather-long-option-name-indeed TEXT\n" + std::string(34, ' ') + "words words"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("words (default: start)\n"), std::string::npos) << help;
  EXPECT_NE(help.find("  # what\n  millrace try " + std::string(60, 'a') + " \\\n      " + std::string(60, 'b')),
            std::string::npos)
      << help;
  // A quoted argument is not broken: the shell would read it otherwise.
  EXPECT_NE(help.find(std::string(70, 'c') + " --command \\\n      'x {first} {count}'\n"), std::string::npos) << help;
}

}  // namespace
}  // namespace millrace::cli
