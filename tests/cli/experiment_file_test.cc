// End-to-end tests of experiment files (`compare -f`, `plan -f`, cli/experiment_file.h) on a
// synthetic cost model: the stored text, printed back by `show --experiment` and run again, gives
// byte-identical results; the command line overrides the file, and the file with an override
// gives what the same settings all on the command line give; every malformed file is refused
// naming FILE:LINE:COLUMN and the key, before anything is stored.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/cli/compare_fixture.h"
#include "tests/cli/store_query.h"

namespace millrace::cli {
namespace {

using cli_test::query_count;
using cli_test::query_store;
using test_support::CommandResult;
using test_support::run_cli;
using test_support::run_shell;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// What the CLI prints on stdout (stderr to a file of its own).
CommandResult stdout_of(const std::string& args, const std::string& stderr_path) {
  return run_shell(std::string(MILLRACE_CLI) + " " + args + " 2>" + stderr_path);
}

// The output without its line "stored as comparison N in ...".
std::string without_stored_line(std::string output) {
  const std::size_t stored = output.find("stored as comparison ");
  if (stored != std::string::npos) output.erase(stored, output.find('\n', stored) + 1 - stored);
  return output;
}

// An experiment file's text and the start of the error refusing it, after "millrace: FILE".
struct RefusedFile {
  std::string text;
  std::string message;
};

class ExperimentFile : public cli_test::CompareFixture {
 protected:
  void SetUp() override {
    CompareFixture::SetUp();
    write_file(path("theirs.txt"), "999/500\n499/500\n");
  }

  // An experiment for both commands: shared keys, then each command's section.
  std::string experiment() const {
    return "# a comparison and a plan on the synthetic model\n"
           "store: " + store_ + "\n"
           "model: " + model_ + "\n"
           "span: \"0:999\"\n"
           "partitioners: [uniform, cost-balanced]\n"
           "ranges: {theirs: " + path("theirs.txt") + "}\n"
           "replicas: 3\n"
           "seed: 7\n"
           "fail-prob: 0.1\n"
           "startup-latency: [1s, 20s]\n"
           "compare:\n"
           "  workers: [2, 4]\n"
           "  order: [plan, lpt]\n"
           "plan:\n"
           "  deadline: 10m\n"
           "  confidence: 1\n"
           "  max-workers: 32\n";
  }

  // `compare -f` of a file holding `text` is refused, its one line starting "millrace: FILE" + `message`.
  void expect_refused(const std::string& text, const std::string& message) {
    const std::string file = path("bad.yaml");
    write_file(file, text);
    const CommandResult r = run_cli("compare -f " + file);
    EXPECT_EQ(r.exit_code, 1) << text;
    EXPECT_EQ(r.output.rfind("millrace: " + file + message, 0), 0u) << text << "\n" << r.output;
  }
};

TEST_F(ExperimentFile, TheStoredTextRunAgainGivesByteIdenticalResults) {
  const std::string file = path("experiment.yaml");
  write_file(file, experiment());
  const CommandResult first = run_cli("compare -f " + file);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("theirs"), std::string::npos) << first.output;
  const CommandResult planned = run_cli("plan -f " + file);
  ASSERT_EQ(planned.exit_code, 0) << planned.output;

  // The text and hash kept: the file byte for byte, and what sha256sum says of it.
  const CommandResult printed = stdout_of("show --store " + store_ + " --experiment 1", path("err.txt"));
  ASSERT_EQ(printed.exit_code, 0) << read_file(path("err.txt"));
  EXPECT_EQ(printed.output, experiment());
  EXPECT_EQ(read_file(path("err.txt")), "");  // no options beside the file
  const CommandResult sum = run_shell("sha256sum " + file);
  ASSERT_EQ(sum.exit_code, 0);
  EXPECT_EQ(query_store(store_, "SELECT sha256 FROM comparison_experiments WHERE comparison_id = 1"),
            std::vector<std::string>{sum.output.substr(0, 64)});
  const std::string runs = run_cli("runs --store " + store_).output;
  EXPECT_NE(runs.find(sum.output.substr(0, 64)), std::string::npos);
  // Each comparison listed with what it compared, under its row: the file's candidates, worker
  // counts and orders, the model; the plan's answer as stored.
  const std::size_t compared = runs.find("\n      compared ");
  ASSERT_NE(compared, std::string::npos) << runs;
  const std::string compare_line = runs.substr(compared + 1, runs.find('\n', compared + 1) - compared - 1);
  for (const char* part : {"uniform", "cost-balanced", "theirs", " on 2, 4 workers, queue orders plan, lpt"}) {
    EXPECT_NE(compare_line.find(part), std::string::npos) << part << ": " << compare_line;
  }
  EXPECT_TRUE(compare_line.ends_with("; model " + model_)) << compare_line;
  const std::size_t planned_at = runs.find("\n      compared ", compared + 1);
  ASSERT_NE(planned_at, std::string::npos) << runs;
  const std::string plan_line = runs.substr(planned_at + 1, runs.find('\n', planned_at + 1) - planned_at - 1);
  const std::string answer = nlohmann::json::parse(
      query_store(store_, "SELECT parameters FROM comparisons WHERE kind = 'plan'").at(0))["answer_workers"].dump();
  EXPECT_NE(plan_line.find("; answer " + answer + " workers; model " + model_), std::string::npos) << plan_line;
  EXPECT_NE(plan_line.find("; deadline "), std::string::npos) << plan_line;

  // Written back to a file elsewhere and run again: the same table, the same stored rows.
  const std::string again = path("again.yaml");
  write_file(again, printed.output);
  const CommandResult second = run_cli("compare -f " + again);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(without_stored_line(second.output), without_stored_line(first.output));
  const std::string rows = "SELECT group_concat(partitioner || workers || queue_order || ranges || makespan_mean_us || "
                           "makespan_max_us || failed_attempts_mean, ';') FROM (SELECT * FROM comparison_rows "
                           "WHERE comparison_id = ";
  EXPECT_EQ(query_store(store_, rows + "1 ORDER BY position)"), query_store(store_, rows + "3 ORDER BY position)"));
  const CommandResult plan_again = run_cli("plan -f " + again);
  ASSERT_EQ(plan_again.exit_code, 0) << plan_again.output;
  EXPECT_EQ(without_stored_line(plan_again.output), without_stored_line(planned.output));
}

TEST_F(ExperimentFile, TheCommandLineOverridesTheFileAndIsStoredBesideIt) {
  const std::string file = path("experiment.yaml");
  write_file(file, experiment());
  const CommandResult overridden = run_cli("compare -f " + file + " --replicas 2 --workers 3 --json");
  ASSERT_EQ(overridden.exit_code, 0) << overridden.output;
  const nlohmann::json rows = nlohmann::json::parse(overridden.output)["rows"];
  ASSERT_FALSE(rows.empty());
  for (const nlohmann::json& row : rows) {
    EXPECT_EQ(row["replicas"], 2);
    EXPECT_EQ(row["workers"], 3);
  }
  // The same settings all on the command line give the same results.
  const CommandResult spelled_out = run_cli(
      "compare --store " + store_ + " --model " + model_ + " --span 0:999 --partitioners uniform,cost-balanced"
      " --ranges theirs=" + path("theirs.txt") + " --replicas 2 --seed 7 --fail-prob 0.1 --startup-latency 1s,20s"
      " --workers 3 --order plan,lpt --json");
  ASSERT_EQ(spelled_out.exit_code, 0) << spelled_out.output;
  nlohmann::json a = nlohmann::json::parse(overridden.output);
  nlohmann::json b = nlohmann::json::parse(spelled_out.output);
  a.erase("stored_comparison");
  b.erase("stored_comparison");
  EXPECT_EQ(a, b);

  EXPECT_EQ(query_store(store_, "SELECT overrides FROM comparison_experiments WHERE comparison_id = 1"),
            std::vector<std::string>{R"(["--replicas","2","--json","--workers","3"])"});
  const CommandResult printed = stdout_of("show --store " + store_ + " --experiment 1", path("err.txt"));
  EXPECT_EQ(printed.output, experiment());
  EXPECT_NE(read_file(path("err.txt")).find("with these options beside it on the command line: --replicas 2 --json "
                                            "--workers 3"),
            std::string::npos)
      << read_file(path("err.txt"));
  // A comparison run without a file has none to print.
  const CommandResult none = run_cli("show --store " + store_ + " --experiment 2");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("comparison 2 was run from the command line alone"), std::string::npos) << none.output;
}

TEST_F(ExperimentFile, AModelFittedFromTheRunsTheFileNamesEqualsTheOneFitWrites) {
  // 40 recorded ranges of 100 units, tip first, durations varying along the sequence.
  std::string metrics;
  for (int i = 0; i < 40; ++i) {
    metrics += std::to_string(3999 - 100 * i) + "/100|" + std::to_string(i % 4) + "|0|" +
               std::to_string(100 + (i * 37) % 400) + "s\n";
  }
  write_file(path("metrics.txt"), metrics);
  ASSERT_EQ(run_cli("import --store " + store_ + " --format stellar-metrics --name rec " + path("metrics.txt")).exit_code,
            0);
  const CommandResult fit = run_cli("fit --store " + store_ + " --runs rec -o " + path("fitted.json"));
  ASSERT_EQ(fit.exit_code, 0) << fit.output;
  const std::string settings = "store: " + store_ + "\nrun: rec\nworkers: [2, 4]\nreplicas: 2\npartitioners: [uniform]\n"
                               "json: true\nno-record: true\n";
  write_file(path("fit.yaml"), settings + "fit-runs: rec\n");
  const CommandResult fitted_here = run_cli("compare -f " + path("fit.yaml"));
  ASSERT_EQ(fitted_here.exit_code, 0) << fitted_here.output;
  write_file(path("file.yaml"), settings + "model: " + path("fitted.json") + "\n");
  // The same cost model either way; the file also holds the cluster fit writes beside it (the
  // recorded workers' gaps), said in cluster_source, which --fit-runs does not fit.
  nlohmann::json from_file = nlohmann::json::parse(run_cli("compare -f " + path("file.yaml")).output);
  nlohmann::json from_runs = nlohmann::json::parse(fitted_here.output);
  EXPECT_EQ(from_runs["cluster_source"], "cluster: typed in");
  EXPECT_NE(from_file["cluster_source"].get<std::string>().find("fitted in " + path("fitted.json")), std::string::npos)
      << from_file["cluster_source"];
  from_file.erase("cluster_source");
  from_runs.erase("cluster_source");
  EXPECT_EQ(from_file, from_runs);

  write_file(path("both.yaml"), settings + "fit-runs: rec\nmodel: " + path("fitted.json") + "\n");
  EXPECT_NE(run_cli("compare -f " + path("both.yaml")).output.find("--model excludes --fit-runs"), std::string::npos);
  write_file(path("neither.yaml"), settings);
  EXPECT_NE(run_cli("compare -f " + path("neither.yaml")).output.find("--model: give a cost model file, or --fit-runs"),
            std::string::npos);
}

TEST_F(ExperimentFile, MalformedFilesNameTheFileTheLineAndTheKey) {
  const std::string head = "store: " + store_ + "\nmodel: " + model_ + "\n";
  const RefusedFile cases[] = {
      {head + "workers: 2\nreplica: 3\n", ":4:1: unknown key 'replica' for millrace compare (keys: store, model,"},
      {head + "replicas: three\n", ":3:11: key 'replicas': 'three' is not a whole number"},
      {head + "replicas: 0\n", ":3:11: key 'replicas': 0 is out of range"},
      {head + "replicas: [1, 2]\n", ":3:11: key 'replicas': '1,2' is not a whole number"},
      {head + "workers: {a: 1}\n", ":3:10: key 'workers': expected a value or a list, found a mapping"},
      {head + "partitioners: [[uniform]]\n", ":3:16: key 'partitioners': expected a value, found a list"},
      {head + "json: maybe\n", ":3:7: key 'json' is a flag: expected true or false, found 'maybe'"},
      {head + "deadline: soon\n", ":3:11: key 'deadline': "},
      {head + "seed:\n", ":3:1: key 'seed' has no value"},
      {head + "store: again.db\n", ":3:1: key 'store' given twice (first at line 1)"},
      {head + "workers: 2\ncompare:\n  workers: 4\n", ":5:3: key 'workers' given twice (first at line 3)"},
      {head + "plan:\n  deadlin: 3h\n", ":4:3: unknown key 'deadlin' for millrace plan"},
      {head + "compare: [1]\n", ":3:10: section 'compare': expected a mapping of compare's options, found a list"},
      {head + "workers: [2\n", ":4:1: not YAML: "},
      {"- store\n", ":1:1: an experiment file is a mapping of option names to values, found a list"},
      {"", ": an experiment file is a mapping of option names to values, found nothing"},
  };
  for (const auto& c : cases) expect_refused(c.text, c.message);
  EXPECT_EQ(query_count(store_, "SELECT count(*) FROM comparisons"), 0);
  const std::string file = path("bad.yaml");
  // A missing file, and a required key missing from both.
  const CommandResult missing = run_cli("plan -f " + path("nowhere.yaml"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find(path("nowhere.yaml") + ": cannot read the experiment file"), std::string::npos)
      << missing.output;
  // Bounded and regular (as every config file read, data/small_file.h): /dev/zero was read on.
  const CommandResult zero = run_cli("plan -f /dev/zero");
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_NE(zero.output.find("millrace: /dev/zero: the experiment file must be a regular file, this is a device"),
            std::string::npos)
      << zero.output;
  // A store, from the file or the command line, unless the result is not kept (--no-record).
  write_file(file, "model: " + model_ + "\nmax-workers: 8\ndeadline: 1h\n");
  const CommandResult no_store = run_cli("plan -f " + file);
  EXPECT_EQ(no_store.exit_code, 1);
  EXPECT_NE(no_store.output.find("millrace: --store: required: the result is stored in it (or give --no-record)"),
            std::string::npos)
      << no_store.output;
  EXPECT_EQ(run_cli("plan -f " + file + " --store " + store_).exit_code, 0);
  EXPECT_EQ(run_cli("plan -f " + file + " --no-record").exit_code, 0);
  // A plan needs a target, a deadline or a wait ceiling, but neither alone is required.
  write_file(file, head + "max-workers: 8\n");
  const CommandResult no_target = run_cli("plan -f " + file);
  EXPECT_EQ(no_target.exit_code, 1);
  EXPECT_NE(no_target.output.find("--deadline: give a positive wanted makespan (e.g. 24h) or a wait target"),
            std::string::npos)
      << no_target.output;
  EXPECT_EQ(run_cli("plan -f " + file + " --deadline 1h").exit_code, 0);
}

// Values the command reads after parsing (worker lists, partitioner and order names, spans,
// durations, resource settings) are refused the same way: FILE:LINE:COLUMN of the value (1-based),
// the key and the problem with the value, in compare's and plan's sections alike.
TEST_F(ExperimentFile, BadValuesNameTheFileLineAndColumnOfTheValueAndTheKey) {
  const std::string head = "store: " + store_ + "\nmodel: " + model_ + "\n";
  const RefusedFile cases[] = {
      {head + "workers: many\n",
       ":3:10: key 'workers': 'many': expected comma-separated positive worker counts, e.g. 32,64,128"},
      {head + "compare:\n  workers: [2, -3]\n",
       ":4:12: key 'workers': '2,-3': expected comma-separated positive worker counts"},
      {head + "replicas: -3\n", ":3:11: key 'replicas': -3 is out of range (expected a whole number from 1 to "},
      {head + "partitioners: [uniform, fastest]\n",
       ":3:15: key 'partitioners': unknown partitioner 'fastest' (known: uniform, logarithmic, cost-balanced, optimal)"},
      {head + "order: [plan, sideways]\n", ":3:8: key 'order': queue order 'sideways': unknown (known: plan, lpt,"},
      {head + "span: 5:x\n", ":3:7: key 'span': 5:x: expected FIRST:LAST"},
      {head + "preset: fastest\n", ":3:9: key 'preset': preset fastest: unknown preset (known: stellar-pubnet)"},
      {head + "startup-latency: [1s, 2x]\n", ":3:18: key 'startup-latency': '2x': not a duration"},
      {head + "scale-down-delay: soon\n", ":3:19: key 'scale-down-delay': 'soon': not a duration"},
      {head + "placement: tightest\n", ":3:12: key 'placement': unknown placement 'tightest'"},
      {head + "type-limit: [render=0]\n", ":3:13: key 'type-limit': 'render=0': expected TYPE=K"},
  };
  for (const auto& c : cases) expect_refused(c.text, c.message);
  const std::string file = path("bad.yaml");
  write_file(file, head + "plan:\n  deadline: 1h\n  max-workers: 8\n  partitioners: optimal,best\n");
  const CommandResult plan = run_cli("plan -f " + file);
  EXPECT_EQ(plan.exit_code, 1);
  EXPECT_EQ(plan.output.rfind("millrace: " + file + ":6:17: key 'partitioners': unknown partitioner 'best'", 0), 0u)
      << plan.output;
  EXPECT_EQ(query_count(store_, "SELECT count(*) FROM comparisons"), 0);
}

}  // namespace
}  // namespace millrace::cli
