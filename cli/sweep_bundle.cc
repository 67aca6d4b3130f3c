#include "cli/sweep_bundle.h"

#include <openssl/evp.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <tuple>

#include "cli/experiment_file.h"
#include "cluster_adapter/kubernetes/base64.h"
#include "data/error.h"
#include "data/importers/json_input.h"
#include "data/small_file.h"

namespace millrace::cli {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "millrace-sweep-bundle/1";

// The shared options a worker does not take: where results go and how this machine runs.
const std::set<std::string> kNotBundled = {"-f", "--store", "--json", "--no-record", "--quiet", "--threads"};
// Options naming a file, carried inside the bundle.
const std::set<std::string> kFileOptions = {"--model", "--ranges", "--node-pools"};
// Options that read the trace store: with them the bundle carries a copy of the store.
const std::set<std::string> kStoreOptions = {"--run", "--fit-runs"};

// Bytes as base64 (a JSON string holds text only).
std::string base64_of(const std::string& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

// A consistent copy of the trace store at `path` (SQLite's VACUUM INTO: what is committed, the
// write-ahead log included), as bytes.
std::string store_snapshot(const std::string& path) {
  const std::filesystem::path copy =
      std::filesystem::temp_directory_path() / ("millrace-sweep-store-" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(copy);
  std::string quoted;
  for (char c : copy.string()) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  sqlite3* db = nullptr;
  int code = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  if (code == SQLITE_OK) code = sqlite3_exec(db, ("VACUUM INTO '" + quoted + "'").c_str(), nullptr, nullptr, nullptr);
  const std::string problem = code == SQLITE_OK ? "" : sqlite3_errmsg(db);
  sqlite3_close(db);
  if (!problem.empty()) throw data::Error("--store " + path, "cannot copy it into the sweep's bundle: " + problem);
  std::string bytes;
  try {
    bytes = data::read_small_file(copy.string(), "--store (carried in the sweep's bundle)", kMaxBundleBytes);
  } catch (...) {
    std::filesystem::remove(copy);
    throw;
  }
  std::filesystem::remove(copy);
  return bytes;
}

std::set<std::string> shared_option_names() {
  CLI::App scratch;
  ComparisonOptions options;
  add_comparison_options(&scratch, options);
  std::set<std::string> names;
  for (const CLI::Option* option : scratch.get_options()) names.insert(option->get_name());
  return names;
}

}  // namespace

SweepBundle make_sweep_bundle(const CLI::App& command, const std::string& plan_name, const ImpliedOptions& implied) {
  const std::set<std::string> shared = shared_option_names();
  json args = json::array();
  json files = json::array();
  std::size_t size = 0;
  bool reads_store = false;
  for (const CLI::Option* option : command.get_options()) {
    const std::string name = option->get_name();
    if (option->count() == 0 || !shared.count(name) || kNotBundled.count(name)) continue;
    reads_store |= kStoreOptions.count(name) > 0;
    for (const std::string& value : option->results()) {
      if (!kFileOptions.count(name)) {
        args.push_back({{"option", name}, {"value", value}});
        continue;
      }
      std::string candidate;  // a --ranges NAME=FILE keeps its name
      std::string path = value;
      if (name == "--ranges") std::tie(candidate, path) = candidate_name_and_file(value);
      std::string text = data::read_small_file(path, name + " (carried in the sweep's bundle)", kMaxBundleBytes);
      size += text.size();
      if (size > kMaxBundleBytes) throw data::Error(name + " " + path, "the sweep's bundle would be over 256 MiB");
      args.push_back({{"option", name}, {"file", files.size()}, {"name", candidate},
                      {"file_name", std::filesystem::path(path).filename().string()}});
      files.push_back(std::move(text));
    }
  }
  for (const auto& [name, value] : implied) {
    if (command.get_option(name)->count() == 0) args.push_back({{"option", name}, {"value", value}});
  }
  if (reads_store) {
    std::string store = store_snapshot(command.get_option("--store")->as<std::string>());
    size += store.size();
    if (size > kMaxBundleBytes) throw data::Error("--store", "the sweep's bundle would be over 256 MiB with a copy of it");
    args.push_back({{"option", "--store"}, {"file", files.size()}, {"name", ""}, {"file_name", "store.db"},
                    {"encoding", "base64"}});
    files.push_back(base64_of(store));
  }
  SweepBundle bundle;
  bundle.text = json{{"format", kFormat}, {"plan_name", plan_name}, {"args", args}, {"files", files}}.dump();
  bundle.sha256 = sha256_hex(bundle.text);
  return bundle;
}

std::unique_ptr<BundledSpec> spec_from_bundle(const std::string& text, const std::filesystem::path& dir) {
  const std::string input = "the sweep's bundle";
  const json bundle = data::importers::parse_json_text(text, input);
  if (!bundle.is_object() || bundle.value("format", json()) != kFormat) {
    throw data::Error(input, std::string("is not a ") + kFormat + " document");
  }
  const json& args = bundle.at("args");
  const json& files = bundle.at("files");
  if (!args.is_array() || !files.is_array() || !bundle.at("plan_name").is_string()) {
    throw data::Error(input, "needs args and files arrays and a plan_name");
  }
  std::filesystem::create_directories(dir);
  std::vector<std::string> argv;
  for (const json& arg : args) {
    if (!arg.is_object() || !arg.contains("option") || !arg["option"].is_string()) {
      throw data::Error(input + " args", "each is {\"option\", \"value\"} or {\"option\", \"file\", ...}");
    }
    const std::string option = arg["option"];
    if (arg.contains("value") && arg["value"].is_string()) {
      argv.push_back(option + "=" + arg["value"].get<std::string>());
      continue;
    }
    const json& index = arg.value("file", json());
    if (!index.is_number_unsigned() || index.get<std::size_t>() >= files.size() || !files[index.get<std::size_t>()].is_string()) {
      throw data::Error(input + " " + option, "names no file of the bundle");
    }
    const std::string file_name = arg.value("file_name", std::string("file"));
    if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." || file_name == "..") {
      throw data::Error(input + " " + option, "file_name must be a plain file name");
    }
    const std::filesystem::path path = dir / std::to_string(index.get<std::size_t>()) / file_name;
    std::filesystem::create_directories(path.parent_path());
    std::string content = files[index.get<std::size_t>()].get<std::string>();
    if (arg.value("encoding", "") == "base64") {
      std::optional<std::string> bytes = cluster_adapter::base64_decode(content);
      if (!bytes) throw data::Error(input + " " + option, "its file is not valid base64");
      content = std::move(*bytes);
    }
    std::ofstream(path, std::ios::binary) << content;
    const std::string name = arg.value("name", std::string());
    argv.push_back(option + "=" + (name.empty() ? "" : name + "=") + path.string());
  }
  auto out = std::make_unique<BundledSpec>();
  CLI::App app;
  add_comparison_options(&app, out->options);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 parses a vector from its back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw data::Error(input, std::string("its options do not parse: ") + e.what());
  }
  out->options.no_record = true;
  out->options.quiet = true;
  out->store = comparison_store(out->options);  // the bundle's copy with --run or --fit-runs, else none
  if (!out->options.model_path.empty() || !out->options.fit_runs.empty()) {
    out->model = comparison_model(out->options, out->store);
  }
  out->base = comparison_spec(out->options, out->store, out->model ? &out->model->model : nullptr);
  out->base.base.scheduler.plan_name = bundle.at("plan_name").get<std::string>();
  return out;
}

}  // namespace millrace::cli
