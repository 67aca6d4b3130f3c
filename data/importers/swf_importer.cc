#include "data/importers/swf_importer.h"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "data/checked_numbers.h"
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
enum Field { kJob, kSubmit, kWait, kRunTime, kProcessors, kRequestedProcessors = 7, kStatus = 10, kPartition = 15, kPreceding = 16 };

using Job = std::array<double, kFields>;

std::string number_text(double value) { return nlohmann::json(value).dump(); }

Job parse_job(const TextInput& input) {
  std::string_view line = input.line();
  std::vector<std::string_view> tokens;
  for (std::size_t at = line.find_first_not_of(" \t"); at != std::string_view::npos;) {
    std::size_t end = std::min(line.find_first_of(" \t", at), line.size());
    tokens.push_back(line.substr(at, end - at));
    at = line.find_first_not_of(" \t", end);
  }
  if (tokens.size() != kFields) throw Error(input.where(), input.field_count_problem(tokens.size(), kFields));
  Job job{};
  const std::string where = input.where();
  for (std::size_t i = 0; i < kFields; ++i) job[i] = parse_real(tokens[i], where, kNames[i]);
  return job;
}

// A field that must hold a whole number (job and partition numbers, the status).
std::int64_t whole(const Job& job, Field field, const std::string& where) {
  auto value = whole_number(job[field]);
  if (!value) {
    throw Error(where, std::string(kNames[field]) + " " + number_text(job[field]) +
                           " is not a whole number within +-2^53");
  }
  return *value;
}

// A time field in seconds (-1 = unknown where allowed, counted as 0).
Micros seconds(const Job& job, Field field, const std::string& where, bool unknown_allowed) {
  const double value = job[field];
  if (unknown_allowed && value == -1) return 0;
  if (value < 0) throw Error(where, std::string("negative ") + kNames[field] + " " + number_text(value));
  auto micros = micros_from_real(value, kMicrosPerSecond);
  if (!micros) {
    throw Error(where, std::string(kNames[field]) + " " + number_text(value) + " out of range (at most " +
                           std::to_string(kMaxMicros / kMicrosPerSecond) + " s, about 285 years)");
  }
  return *micros;
}

Attempt job_attempt(const Job& job, const std::string& id, const std::string& where) {
  Attempt a;
  a.item_id = id;
  a.submitted = seconds(job, kSubmit, where, false);
  a.start = time_sum(*a.submitted, seconds(job, kWait, where, true), where, "submit + wait");
  a.end = time_sum(a.start, seconds(job, kRunTime, where, false), where, "submit + wait + run_time");
  if (job[kPartition] >= 0) a.worker = "partition-" + std::to_string(whole(job, kPartition, where));
  const std::int64_t status = whole(job, kStatus, where);
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

WorkItem job_item(const Job& job, const std::string& id, const std::string& where) {
  WorkItem item;
  item.id = id;
  item.type = "job";
  item.submit_at = seconds(job, kSubmit, where, false);
  nlohmann::json payload = nlohmann::json::object();
  for (std::size_t i = kRunTime + 1; i < kFields; ++i) {
    if (i == kStatus || job[i] == -1) continue;
    auto value = whole_number(job[i]);
    payload[kNames[i]] = value ? nlohmann::json(*value) : nlohmann::json(job[i]);
  }
  item.payload = payload.dump();
  // The processors a job held (else asked for) are its CPU request, one CPU each.
  const Field processors = job[kProcessors] > 0 ? kProcessors : kRequestedProcessors;
  if (job[processors] > 0) {
    const std::int64_t count = whole(job, processors, where);
    auto milli = checked_mul(count, 1000);
    if (!milli) throw Error(where, std::string(kNames[processors]) + " " + std::to_string(count) + " is too many CPUs");
    item.requests["cpu"] = *milli;
  }
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

Run read_swf(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  nlohmann::json header = nlohmann::json::object();
  std::size_t jobs = 0;
  while (input.next_line()) {
    std::string_view line = input.line();
    std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) continue;
    if (line[start] == ';') {
      keep_header(line.substr(start), header);
      continue;
    }
    const Job job = parse_job(input);
    const std::string where = input.where();
    const std::int64_t number = whole(job, kJob, where);
    if (number <= 0) throw Error(where, "job number must be positive");
    if (job[kWait] < 0 && job[kWait] != -1) throw Error(where, "negative wait " + number_text(job[kWait]));
    if (job[kRunTime] < 0 && job[kRunTime] != -1) throw Error(where, "negative run time (duration) " + number_text(job[kRunTime]));
    const std::string id = std::to_string(number);
    WorkItem item = job_item(job, id, where);
    const std::int64_t preceding = job[kPreceding] > 0 ? whole(job, kPreceding, where) : 0;
    if (preceding > 0 && sink.has_item(std::to_string(preceding))) item.depends_on.push_back(std::to_string(preceding));
    if (!sink.add_item(item)) throw Error(where, "duplicate job number " + id);
    if (job[kRunTime] != -1) sink.add_attempt(job_attempt(job, id, where), where);
    ++jobs;
  }
  if (jobs == 0) throw Error(path, "no jobs (only header comments)");
  Run run;
  run.source = RunSource::kRecorded;
  run.units = "jobs";
  run.parameters = nlohmann::json{{"swf_header", header}}.dump();
  return run;
}

Trace read_swf(const std::string& path) { return read_whole(path, read_swf); }

}  // namespace millrace::data::importers
