// Every entry of every registry (data/registry.h) is reachable from the command line, and an
// unknown name is refused listing the known ones: each import format imports with `import`, each
// partitioner is scored by `compare` from a span and a worker count alone (its own defaults
// filling the rest), each concurrency policy replays a recorded run with `simulate`. The lists
// come from the registries, so an entry added without being reachable fails here.
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/importers/importers.h"
#include "partitioners/registry.h"
#include "scheduler/concurrency_policy.h"
#include "tests/cli/cli_runner.h"
#include "tests/data/import_samples.h"
#include "tests/data/store_fixture.h"

namespace millrace::cli {
namespace {

using data::testing::TempDir;
using data::testing::write_file;
using test_support::CommandResult;
using test_support::run_cli;

const std::string kEthereum = std::string(MILLRACE_SOURCE_DIR) + "/data/sets/ethereum-daily-2015-2018";

class Registries : public ::testing::Test {
 protected:
  // An input of each format, as a path: a file written here, or a bundled directory.
  std::map<std::string, std::string> inputs() {
    std::map<std::string, std::string> paths;
    for (const data::testing::ImportSample& s : data::testing::text_samples()) {
      write_file(dir_.file(s.file), s.content);
      paths[s.format] = dir_.file(s.file);
    }
    paths["ethereum"] = kEthereum;
    write_file(dir_.file("p.csv"), "first,count,cost_s\n0,100,0.2\n100,10,0.5\n110,90,0.09\n");
    paths["profile"] = dir_.file("p.csv");
    return paths;
  }
  std::string store(const std::string& name = "s.db") const { return dir_.file(name); }
  TempDir dir_;
};

TEST_F(Registries, EveryImportFormatImportsFromTheCommandLine) {
  const std::map<std::string, std::string> paths = inputs();
  ASSERT_FALSE(data::importers::import_formats().empty());
  for (const std::string& format : data::importers::import_formats()) {
    SCOPED_TRACE(format);
    auto path = paths.find(format);
    ASSERT_NE(path, paths.end()) << "format '" << format << "' is registered without a sample in this test";
    const CommandResult r = run_cli("import --store " + store(format + ".db") + " --format " + format + " " +
                                    path->second);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.rfind("imported ", 0), 0u) << r.output;
  }
}

TEST_F(Registries, AnUnknownImportFormatListsEveryRegisteredOne) {
  const CommandResult r = run_cli("import --store " + store() + " --format xml " + inputs().at("csv"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "millrace: --format: unknown import format 'xml' (known: " +
                          data::importers::import_format_list() + ")\n");
}

TEST_F(Registries, EveryPartitionerIsScoredByCompareFromSpanAndWorkersAlone) {
  ASSERT_EQ(run_cli("import --store " + store() + " --format profile --name series " + inputs().at("profile")).exit_code,
            0);
  const std::string model = dir_.file("model.json");
  ASSERT_EQ(run_cli("fit --store " + store() + " --profile series -o " + model).exit_code, 0);
  const std::string compare = "compare --store " + store() + " --model " + model + " --workers 3 --json --no-record";
  const CommandResult r = run_cli(compare + " --partitioners " + partitioners::partitioner_list(","));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> scored;
  const nlohmann::json out = nlohmann::json::parse(r.output);
  for (const nlohmann::json& row : out["rows"]) {
    scored.push_back(row["partitioner"].get<std::string>());
  }
  EXPECT_EQ(scored, partitioners::partitioner_names());

  const CommandResult unknown = run_cli(compare + " --partitioners uniform,fastest");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.output, "millrace: --partitioners: unknown partitioner 'fastest' (known: " +
                                partitioners::partitioner_list() + ")\n");
}

TEST_F(Registries, EveryPolicyReplaysARecordedRunFromTheCommandLine) {
  ASSERT_EQ(run_cli("import --store " + store() + " --format csv " + inputs().at("csv")).exit_code, 0);
  const std::string simulate = "simulate --store " + store() + " --run 1 --workers 2 --no-record";
  for (const std::string& policy : scheduler::policy_names()) {
    SCOPED_TRACE(policy);
    const CommandResult r = run_cli(simulate + " --policy " + policy + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json out = nlohmann::json::parse(r.output);
    EXPECT_EQ(out["policy"], policy);
    EXPECT_EQ(out["succeeded"], 2);
  }
  std::string names;
  for (const std::string& policy : scheduler::policy_names()) names += (names.empty() ? "" : ",") + policy;
  const CommandResult unknown = run_cli(simulate + " --policy greedy");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.output.find("--policy: greedy not in {" + names + "}"), std::string::npos) << unknown.output;
}

}  // namespace
}  // namespace millrace::cli
