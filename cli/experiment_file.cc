#include "cli/experiment_file.h"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "data/error.h"
#include "data/small_file.h"

namespace millrace::cli {

namespace {

constexpr const char* kFileOption = "--file";

std::string where(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string kind_of(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "nothing";
  return "'" + node.Scalar() + "'";
}

bool is_own_option(CLI::App& command, const CLI::Option* option) {
  return option != nullptr && option != command.get_help_ptr() && option != command.get_help_all_ptr() &&
         option != command.get_option_no_throw(kFileOption) && !option->get_lnames().empty();
}

// The command's option named `key` (its long name without the dashes), or null.
CLI::Option* option_for(CLI::App& command, const std::string& key) {
  if (key.empty() || key.starts_with('-')) return nullptr;
  CLI::Option* option = command.get_option_no_throw("--" + key);
  return is_own_option(command, option) ? option : nullptr;
}

std::string known_keys(CLI::App& command) {
  std::string keys;
  for (const CLI::Option* option : command.get_options()) {
    if (is_own_option(command, option)) keys += (keys.empty() ? "" : ", ") + option->get_lnames().front();
  }
  return keys;
}

// The subcommand of the same program (this one or another) named `key` that reads experiment
// files, or null: a section of the file.
CLI::App* experiment_section(CLI::App& command, const std::string& key) {
  CLI::App* parent = command.get_parent();
  if (parent == nullptr) return nullptr;
  for (CLI::App* sibling : parent->get_subcommands([&](CLI::App* app) { return app->get_name() == key; })) {
    if (sibling->get_option_no_throw(kFileOption) != nullptr) return sibling;
  }
  return nullptr;
}

struct Setting {
  CLI::Option* option;
  YAML::Node value;
  YAML::Mark mark;  // of the key
};

std::string scalar_text(const YAML::Node& node, const std::string& file, const std::string& key) {
  if (!node.IsScalar()) {
    throw data::Error(where(file, node.Mark()), "key '" + key + "': expected a value, found " + kind_of(node));
  }
  return node.Scalar();
}

// The command-line values `value` stands for, as the option takes them (see the header).
std::vector<std::string> values_for(const CLI::Option& option, const YAML::Node& value, const std::string& file,
                                    const std::string& key) {
  if (option.get_expected_min() == 0) {
    bool on = false;
    if (!value.IsScalar() || !YAML::convert<bool>::decode(value, on)) {
      throw data::Error(where(file, value.Mark()), "key '" + key + "' is a flag: expected true or false, found " +
                                                       kind_of(value));
    }
    return {on ? "true" : "false"};
  }
  if (value.IsScalar()) return {value.Scalar()};
  const bool repeatable = option.get_items_expected_max() > 1;
  std::vector<std::string> values;
  if (value.IsSequence()) {
    for (const YAML::Node& item : value) values.push_back(scalar_text(item, file, key));
    if (repeatable || values.empty()) return values;
    std::string joined = values.front();
    for (std::size_t i = 1; i < values.size(); ++i) joined += "," + values[i];
    return {joined};
  }
  if (!repeatable) {
    throw data::Error(where(file, value.Mark()), "key '" + key + "': expected a value or a list, found a mapping");
  }
  for (const auto& entry : value) {
    values.push_back(scalar_text(entry.first, file, key) + "=" + scalar_text(entry.second, file, key));
  }
  return values;
}

// `key` of `command`, set to `value`: checked for its shape, kept in `settings`.
void add_setting(CLI::App& command, const std::string& key, const YAML::Node& key_node, const YAML::Node& value,
                 const std::string& file, std::map<std::string, Setting>& settings) {
  CLI::Option* option = option_for(command, key);
  if (option == nullptr) {
    throw data::Error(where(file, key_node.Mark()), "unknown key '" + key + "' for millrace " + command.get_name() +
                                                        " (keys: " + known_keys(command) + ")");
  }
  if (value.IsNull()) throw data::Error(where(file, key_node.Mark()), "key '" + key + "' has no value");
  values_for(*option, value, file, key);
  const auto [kept, added] = settings.emplace(key, Setting{option, value, key_node.Mark()});
  if (!added) {
    throw data::Error(where(file, key_node.Mark()),
                      "key '" + key + "' given twice (first at line " + std::to_string(kept->second.mark.line + 1) + ")");
  }
}

// The settings of `command` in `root`: its top-level keys and those of its own section; the
// sections of the other commands reading experiment files are checked against theirs.
std::map<std::string, Setting> settings_of(CLI::App& command, const YAML::Node& root, const std::string& file) {
  std::map<std::string, Setting> settings;
  for (const auto& entry : root) {
    const std::string key = scalar_text(entry.first, file, "(a key)");
    CLI::App* section = experiment_section(command, key);
    if (section == nullptr) {
      add_setting(command, key, entry.first, entry.second, file, settings);
      continue;
    }
    if (!entry.second.IsMap()) {
      throw data::Error(where(file, entry.second.Mark()), "section '" + key + "': expected a mapping of " + key +
                                                              "'s options, found " + kind_of(entry.second));
    }
    std::map<std::string, Setting> checked_only;
    for (const auto& inner : entry.second) {
      add_setting(*section, scalar_text(inner.first, file, "(a key)"), inner.first, inner.second, file,
                  section == &command ? settings : checked_only);
    }
  }
  return settings;
}

// `message` ("--KEY: problem", "--KEY 'value': problem" or another input's "input: problem")
// without the option's name, which the key stands for.
std::string without_option_name(std::string message, const std::string& key) {
  for (const std::string& prefix : {"--" + key + ": ", "--" + key + " "}) {
    if (message.starts_with(prefix)) return message.erase(0, prefix.size());
  }
  return message;
}

// Sets the option from the file. Every value error, whether CLI11's check or the option's own
// (data::Error thrown while the option is parsed), names FILE:LINE:COLUMN of the value and the key.
void apply(const Setting& setting, const std::string& key, const std::string& file) {
  std::vector<std::string> values = values_for(*setting.option, setting.value, file, key);
  const std::string at = where(file, setting.value.Mark());
  try {
    setting.option->add_result(values);
    setting.option->run_callback();
  } catch (const CLI::Error& e) {
    throw data::Error(at, "key '" + key + "': " + without_option_name(e.what(), key));
  } catch (const data::Error& e) {
    throw data::Error(at, "key '" + key + "': " + without_option_name(e.what(), key));
  }
}

// The options given on the command line beside the file, as they were given.
std::vector<std::string> command_line_options(CLI::App& command) {
  std::vector<std::string> given;
  for (const CLI::Option* option : command.get_options()) {
    if (!is_own_option(command, option) || option->count() == 0) continue;
    const std::string name = "--" + option->get_lnames().front();
    if (option->get_expected_min() == 0) {
      given.push_back(name);
      continue;
    }
    for (const std::string& value : option->results()) {
      given.push_back(name);
      given.push_back(value);
    }
  }
  return given;
}

void read_experiment(CLI::App& command, const std::string& path, sim::ExperimentSource& experiment) {
  experiment.file = path;
  experiment.text = data::read_small_file(path, "experiment file", data::kMaxConfigBytes);
  experiment.sha256 = sha256_hex(experiment.text);
  experiment.overrides = command_line_options(command);
  YAML::Node root;
  try {
    root = YAML::Load(experiment.text);
  } catch (const YAML::ParserException& e) {
    throw data::Error(where(path, e.mark), "not YAML: " + e.msg);
  }
  if (!root.IsMap()) {
    throw data::Error(where(path, root.Mark()), "an experiment file is a mapping of option names to values, found " +
                                                    kind_of(root));
  }
  const std::map<std::string, Setting> settings = settings_of(command, root, path);
  for (const auto& [key, setting] : settings) {
    if (setting.option->count() == 0) apply(setting, key, path);  // else the command line overrides the file
  }
  for (const CLI::Option* option : command.get_options()) {
    if (is_own_option(command, option) && option->get_required() && option->count() == 0) {
      const std::string name = option->get_lnames().front();
      throw data::Error(where(path, root.Mark()), "missing required key '" + name + "' (or give --" + name + ")");
    }
  }
}

}  // namespace

std::string sha256_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw data::Error("SHA-256", "OpenSSL could not hash the experiment file");
  }
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < size; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

void add_experiment_file_option(CLI::App* command, sim::ExperimentSource& experiment) {
  command->add_option_function<std::string>(
      std::string("-f,") + kFileOption,
      [command, &experiment](const std::string& path) { read_experiment(*command, path, experiment); },
      "Experiment file (YAML): keys are this command's long option names; the command line overrides it");
}

}  // namespace millrace::cli
