#include "cli/did_you_mean.h"

#include <algorithm>
#include <cstddef>

namespace millrace::cli {

namespace {

// Edits from `a` to `b`: insertions, deletions, substitutions and swaps of neighbours (the
// optimal string alignment distance).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string_view without_dashes(std::string_view name) {
  while (name.starts_with('-')) name.remove_prefix(1);
  return name;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
  return names;
}

// "--workers", "-o", ...: every name an option of `command` answers to.
std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

}  // namespace

std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& names) {
  const std::string_view word = without_dashes(typed);
  if (word.empty()) return std::nullopt;
  std::vector<std::string> beginning;
  std::optional<std::string> nearest;
  std::size_t nearest_distance = std::max<std::size_t>(1, word.size() / 4) + 1;
  bool tied = false;
  for (const std::string& name : names) {
    const std::string_view candidate = without_dashes(name);
    if (candidate.starts_with(word)) beginning.push_back(name);
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < nearest_distance) {
      nearest = name;
      nearest_distance = distance;
      tied = false;
    } else if (distance == nearest_distance && nearest) {
      tied = true;
    }
  }
  if (nearest && !tied) return nearest;
  if (beginning.size() == 1) return beginning.front();
  return std::nullopt;
}

std::string parse_error_text(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  const bool required = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  if (parsed.empty() && (extras || required)) {
    const std::vector<std::string> commands = command_names(app);
    for (const std::string& word : app.remaining()) {
      if (word.starts_with('-')) continue;
      const std::optional<std::string> meant = nearest_name(word, commands);
      return "unknown command '" + word + "'; " +
             (meant ? "did you mean '" + *meant + "'?" : "the commands are " + CLI::detail::join(commands, ", ")) +
             " (see millrace --help)";
    }
    if (required) return "name a command: " + CLI::detail::join(commands, ", ") + " (see millrace --help)";
  }
  const CLI::App& command = parsed.empty() ? app : *parsed.front();
  const std::string name = parsed.empty() ? "millrace" : "millrace " + command.get_name();
  for (const std::string& word : extras ? command.remaining() : std::vector<std::string>{}) {
    if (!word.starts_with('-') || word == "-" || word == "--") continue;
    const std::string option = word.substr(0, word.find('='));
    const std::optional<std::string> meant = nearest_name(option, option_names(command));
    return (parsed.empty() ? "" : command.get_name() + ": ") + "unknown option " + option +
           (meant ? "; did you mean " + *meant + "?" : "") + " (see " + name + " --help)";
  }
  return std::string(error.what()) + " (see " + name + " --help)";
}

}  // namespace millrace::cli
