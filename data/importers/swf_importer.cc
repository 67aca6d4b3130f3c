#include "data/importers/swf_importer.h"

#include <algorithm>
#include <array>
#include <set>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/importers/text_input.h"

namespace millrace::data::importers {

namespace {

constexpr std::size_t kFields = 18;
constexpr std::array<const char*, kFields> kNames = {
    "job",          "submit",         "wait",  "run_time", "processors", "average_cpu_s",
    "used_memory_kb", "requested_processors", "requested_time_s", "requested_memory_kb", "status", "user",
    "group",        "executable",     "queue", "partition", "preceding_job", "think_time_s"};
enum Field { kJob, kSubmit, kWait, kRunTime, kStatus = 10, kPartition = 15, kPreceding = 16 };

using Job = std::array<double, kFields>;

Job parse_job(const TextInput& input, std::size_t n) {
  std::string_view line = input.line(n);
  std::vector<std::string_view> tokens;
  for (std::size_t at = line.find_first_not_of(" \t"); at != std::string_view::npos;) {
    std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
    tokens.push_back(line.substr(at, end - at));
    at = line.find_first_not_of(" \t", end);
  }
  if (tokens.size() != kFields) throw Error(input.where(n), input.field_count_problem(n, tokens.size(), kFields));
  Job job{};
  std::string where = input.where(n);
  for (std::size_t i = 0; i < kFields; ++i) job[i] = parse_real(tokens[i], where, kNames[i]);
  return job;
}

Micros seconds(double value) { return micros_from_seconds(value); }

void check_time(double value, const std::string& where, const char* what, bool unknown_allowed) {
  if (value < 0 && !(unknown_allowed && value == -1)) {
    throw Error(where, "negative " + std::string(what) + " " + std::to_string(static_cast<long long>(value)));
  }
}

Attempt job_attempt(const Job& job, const std::string& id, const std::string& where) {
  Attempt a;
  a.item_id = id;
  a.start = seconds(job[kSubmit]) + (job[kWait] > 0 ? seconds(job[kWait]) : 0);
  a.end = a.start + seconds(job[kRunTime]);
  if (job[kPartition] >= 0) a.worker = "partition-" + std::to_string(static_cast<long long>(job[kPartition]));
  int status = static_cast<int>(job[kStatus]);
  if (status == 0) {
    a.outcome = Outcome::kFailed;
    a.exit_code = 1;
    a.failure_reason = "SWF status 0 (failed)";
  } else if (status == 5) {
    a.outcome = Outcome::kCancelled;
    a.exit_code = 1;
    a.failure_reason = "SWF status 5 (cancelled)";
  } else if (status < -1 || status > 5) {
    throw Error(where, "unknown status " + std::to_string(status) + " (SWF knows -1 and 0-5)");
  }
  return a;
}

WorkItem job_item(const Job& job, const std::string& id) {
  WorkItem item;
  item.id = id;
  item.type = "job";
  item.submit_at = seconds(job[kSubmit]);
  nlohmann::json payload = nlohmann::json::object();
  for (std::size_t i = kRunTime + 1; i < kFields; ++i) {
    if (i == kStatus || job[i] == -1) continue;
    payload[kNames[i]] = job[i] == static_cast<double>(static_cast<long long>(job[i]))
                             ? nlohmann::json(static_cast<long long>(job[i]))
                             : nlohmann::json(job[i]);
  }
  item.payload = payload.dump();
  return item;
}

// "; Key: value" header lines, repeated keys joined with a space.
void keep_header(std::string_view line, nlohmann::json& header) {
  line.remove_prefix(1);
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  auto trim = [](std::string_view s) {
    std::size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
  };
  std::string key = trim(line.substr(0, colon));
  std::string value = trim(line.substr(colon + 1));
  if (key.empty() || key.find(' ') != std::string::npos) return;
  header[key] = header.contains(key) ? header[key].get<std::string>() + " " + value : value;
}

}  // namespace

Trace read_swf(const std::string& path) {
  auto input = TextInput::read(path);
  Trace trace;
  trace.run.source = RunSource::kRecorded;
  trace.run.units = "jobs";
  nlohmann::json header = nlohmann::json::object();
  std::vector<std::pair<Job, std::size_t>> jobs;
  std::set<std::string> ids;
  for (std::size_t n = 1; n <= input.line_count(); ++n) {
    std::string_view line = input.line(n);
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) continue;
    if (line[start] == ';') {
      keep_header(line.substr(start), header);
      continue;
    }
    Job job = parse_job(input, n);
    std::string where = input.where(n);
    if (job[kJob] <= 0) throw Error(where, "job number must be positive");
    check_time(job[kSubmit], where, "submit time", false);
    check_time(job[kWait], where, "wait time", true);
    check_time(job[kRunTime], where, "run time (duration)", true);
    std::string id = std::to_string(static_cast<long long>(job[kJob]));
    if (!ids.insert(id).second) throw Error(where, "duplicate job number " + id);
    trace.items.push_back(job_item(job, id));
    if (job[kRunTime] != -1) trace.attempts.push_back(job_attempt(job, id, where));
    jobs.emplace_back(job, n);
  }
  if (jobs.empty()) throw Error(path, "no jobs (only header comments)");
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    std::string preceding = std::to_string(static_cast<long long>(jobs[i].first[kPreceding]));
    if (jobs[i].first[kPreceding] > 0 && ids.count(preceding)) trace.items[i].depends_on.push_back(preceding);
  }
  trace.run.parameters = nlohmann::json{{"swf_header", header}}.dump();
  set_run_span(trace);
  return trace;
}

}  // namespace millrace::data::importers
