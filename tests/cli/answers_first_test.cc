// The four questions users bring, asked on the bundled recording (the Stellar pubnet catch-up of
// 2024-11, imported as README.md imports it, `pcv2`, and fitted): each command's first line holds
// the answer, checked by its content, and the answer equals the figure of the detailed table
// printed below it (or of the command's own JSON). Also the figures that used to contradict each
// other: the preset's span and the model fitted on that preset's recording, the experiment file
// run on the README's import.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/cost_model.h"
#include "tests/cli/cli_runner.h"
#include "tests/support/scratch_dir.h"

namespace millrace::cli {
namespace {

using test_support::CommandResult;
using test_support::run_cli;

const std::string kSource = MILLRACE_SOURCE_DIR;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The rows of the table whose header line starts with `header_start`: the whitespace-separated
// cells of each line after it that has `columns` cells.
std::vector<std::vector<std::string>> table_rows(const std::string& text, const std::string& header_start,
                                                 std::size_t columns) {
  std::istringstream lines(text);
  std::string line;
  bool header = false;
  std::vector<std::vector<std::string>> rows;
  const auto cells = [](const std::string& l) {
    std::istringstream in(l);
    std::vector<std::string> out;
    for (std::string cell; in >> cell;) out.push_back(cell);
    return out;
  };
  while (std::getline(lines, line)) {
    if (!header) {
      header = line.rfind(header_start, 0) == 0;
      continue;
    }
    std::vector<std::string> row = cells(line);
    if (row.size() != columns) break;
    rows.push_back(std::move(row));
  }
  return rows;
}

// Columns of compare's table (sim::print_table): partitioner, workers, order, ranges, longest,
// pred-lb, m/lb, contig, m/ct, mean, p50 (10), p90, max, stddev, util, node-h, tail, failed, wait-p90.
constexpr std::size_t kCompareColumns = 19;

// Hours with two decimals, as a person reads them: "24.62".
std::string hours(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", us / 3.6e9);
  return text;
}

// A table cell in hours with three decimals, rounded to two as the answer line prints it.
std::string hours_of_cell(const std::string& cell) { return hours(std::stod(cell) * 3.6e9); }

// The nearest-rank quantile, computed here independently of the code under test.
double nearest_rank(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const std::size_t rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

// A simulation of the deployment's 3,396 ranges on 250 workers, 5 replicas: its first line gives
// the median and p10-p90 of its JSON row's draws (nearest rank, computed here), and the table
// below it the same median.
void expect_band_of_five_replicas(const CommandResult& text, const nlohmann::json& row) {
  const std::string line = first_line(text.output);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(line, m, std::regex("makespan ([0-9.]+) h \\(median of 5 replicas, p10-p90 ([0-9.]+)-([0-9.]+) h\\) "
                                                   "on 250 workers, fixed-pool, tip-first order")))
      << line;
  std::vector<double> makespans = row["makespans_us"].get<std::vector<double>>();
  ASSERT_EQ(makespans.size(), 5u);
  EXPECT_EQ(m[1].str(), hours(nearest_rank(makespans, 0.5)));
  EXPECT_EQ(m[2].str(), hours(nearest_rank(makespans, 0.1)));
  EXPECT_EQ(m[3].str(), hours(nearest_rank(makespans, 0.9)));
  EXPECT_EQ(row["ranges"], 3396);  // the deployment's list for that tip
  const auto rows = table_rows(text.output, "partitioner", kCompareColumns);
  ASSERT_EQ(rows.size(), 1u) << text.output;
  EXPECT_EQ(hours_of_cell(rows[0][10]), m[1].str()) << text.output;
}

class AnswersFirst : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<test_support::ScratchDir>("AnswersFirst");
    store_ = scratch_->file("t.db");
    model_ = scratch_->file("model.json");
    const CommandResult imported = run_cli("import --store " + store_ + " --format stellar-log " + kSource +
                                           "/data/sets/stellar-pcv2-2024-11/stellar-supercluster.log --name pcv2");
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
    fit_ = run_cli("fit --store " + store_ + " --runs pcv2 -o " + model_ + " --quiet");
    ASSERT_EQ(fit_.exit_code, 0) << fit_.output;
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  static std::unique_ptr<test_support::ScratchDir> scratch_;
  static std::string store_;
  static std::string model_;
  static CommandResult fit_;
};

std::unique_ptr<test_support::ScratchDir> AnswersFirst::scratch_;
std::string AnswersFirst::store_;
std::string AnswersFirst::model_;
CommandResult AnswersFirst::fit_;

// 1. "How long will my catch-up take with N workers?": simulate takes the preset and the tip with
// a model and no recording, and leads with the makespan's median and p10-p90 over the replicas.
TEST_F(AnswersFirst, SimulateOfAPresetOnTheModelLeadsWithTheMakespanBand) {
  const std::string args =
      "simulate --model " + model_ + " --preset stellar-pubnet --tip 54326463 --workers 250 --replicas 5 --seed 3";
  const CommandResult text = run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  const CommandResult json = run_cli(args + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  expect_band_of_five_replicas(text, nlohmann::json::parse(json.output)["rows"][0]);
  // Spans in the sequence's own terms, the negative first ledger explained.
  EXPECT_NE(text.output.find("ledgers -9,536 to 54,326,463"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("reaches below the start (0), as the deployment's generator cuts it"), std::string::npos);
}

// The same question on the deployment's own range list (`partition ... -o theirs.txt`, then
// `simulate --ranges`): it gave one draw of the model's noise. It leads with the median and p10-p90
// over the replicas too (20 unless asked), equal to its row's below and to its JSON's draws, then
// shows one replica in detail.
TEST_F(AnswersFirst, SimulateOfARangesFileOnANoisyModelLeadsWithTheMakespanBand) {
  const std::string theirs = scratch_->file("theirs.txt");
  const CommandResult written = run_cli("partition --preset stellar-pubnet --tip 54326463 --format end-count -o " + theirs);
  ASSERT_EQ(written.exit_code, 0) << written.output;
  const std::string args = "simulate --model " + model_ + " --ranges " + theirs +
                           " --workers 250 --order tip-first --no-record --seed 3";
  const CommandResult text = run_cli(args + " --replicas 5");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  const CommandResult json = run_cli(args + " --replicas 5 --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  expect_band_of_five_replicas(text, nlohmann::json::parse(json.output)["replicas"]["rows"][0]);
  EXPECT_NE(text.output.find("\none replica in detail (seed 3): makespan "), std::string::npos) << text.output;
  // Without --replicas: as many as a band takes, said in the first line.
  const CommandResult defaulted = run_cli(args);
  ASSERT_EQ(defaulted.exit_code, 0) << defaulted.output;
  EXPECT_NE(first_line(defaulted.output).find("(median of 20 replicas, p10-p90 "), std::string::npos)
      << defaulted.output;
}

// README.md quotes the first line of its own simulate block (on the model fitted as its blocks fit
// it): the figures it quotes are the ones printed.
TEST_F(AnswersFirst, TheReadmeQuotesTheMakespanItsSimulateBlockPrints) {
  std::ifstream file(kSource + "/README.md");
  std::stringstream readme;
  readme << file.rdbuf();
  const std::string block = "$m simulate --model out/model.json --preset stellar-pubnet --tip 54326463 --workers 250";
  ASSERT_NE(readme.str().find(block), std::string::npos) << "the README no longer has the block";
  std::smatch quoted;
  const std::string text = readme.str();
  ASSERT_TRUE(std::regex_search(text, quoted, std::regex("`(makespan [^`]*) on 250 workers, \\.\\.\\.`")));
  // The README's prose wraps lines: compare with single spaces.
  const std::string figures = std::regex_replace(quoted[1].str(), std::regex("\\s+"), " ");
  const CommandResult r = run_cli("simulate --model " + model_ + " --preset stellar-pubnet --tip 54326463 --workers 250");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(first_line(r.output).rfind(figures + " on 250 workers, ", 0), 0u) << first_line(r.output) << "\nREADME: " << figures;
}

// Without --replicas a model with noise gets enough replicas for a band, and says how many.
TEST_F(AnswersFirst, ReplicasDefaultToABandWhenTheModelHasNoise) {
  const CommandResult simulated = run_cli("simulate --model " + model_ +
                                          " --preset stellar-pubnet --tip 54326463 --json");
  ASSERT_EQ(simulated.exit_code, 0) << simulated.output;
  EXPECT_EQ(nlohmann::json::parse(simulated.output)["rows"][0]["replicas"], 20);
  const CommandResult compared = run_cli("compare --model " + model_ +
                                         " --preset stellar-pubnet --workers 192 --partitioners uniform --no-record");
  ASSERT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("ranked by the median makespan over 20 replicas"), std::string::npos)
      << compared.output;
  // With nothing drawn at random (no noise, no fitted cluster, no failures) replicas are alike: 1.
  const std::string plain = scratch_->file("plain.json");
  data::CostModel({{{0, 1000}, 0, 1e6}}, "units", "synthetic").save(plain);
  const CommandResult predicted =
      run_cli("compare --model " + plain + " --workers 2 --partitioners uniform --no-record --json");
  ASSERT_EQ(predicted.exit_code, 0) << predicted.output;
  EXPECT_EQ(nlohmann::json::parse(predicted.output)["rows"][0]["replicas"], 1);
  const CommandResult failing =
      run_cli("compare --model " + plain + " --workers 2 --partitioners uniform --fail-prob 0.1 --no-record --json");
  ASSERT_EQ(failing.exit_code, 0) << failing.output;
  EXPECT_EQ(nlohmann::json::parse(failing.output)["rows"][0]["replicas"], 20);
}

// The preset's span and the model fitted on that preset's own recording agree: the ranges cut
// from the tip, with their overlap, reach exactly the model's lowest ledger, and compare on the
// preset takes the same span partition prints.
TEST_F(AnswersFirst, APresetsSpanAgreesWithTheModelFittedOnItsRecording) {
  const data::CostModel model = data::CostModel::load(model_);
  const CommandResult cut = run_cli("partition --preset stellar-pubnet --tip 54326463 --format json --model " + model_);
  ASSERT_EQ(cut.exit_code, 0) << cut.output;
  const nlohmann::json partition = nlohmann::json::parse(cut.output.substr(0, cut.output.rfind('}') + 1));
  const std::int64_t first = partition["span"]["first"];
  EXPECT_EQ(first - 320, model.span().first);  // the lowest range's overlap reaches the model's first ledger
  const CommandResult compared = run_cli("compare --model " + model_ + " --preset stellar-pubnet --workers 192 "
                                         "--partitioners uniform --replicas 2 --no-record --json");
  ASSERT_EQ(compared.exit_code, 0) << compared.output;
  const nlohmann::json out = nlohmann::json::parse(compared.output);
  EXPECT_EQ(out["span"]["first"], first);
  EXPECT_EQ(out["span"]["last"], 54326463);
  EXPECT_EQ(out["rows"][0]["ranges"], 3396);
}

// 2. "Which range generator is best, and by how much?": compare leads with the best candidate per
// worker count, the others as multiples of its median makespan, equal to the table's p50 column.
TEST_F(AnswersFirst, CompareLeadsWithTheBestCandidateAndTheOthersAsMultiplesOfIt) {
  const CommandResult r = run_cli("compare --store " + store_ + " --model " + model_ +
                                  " --run pcv2 --workers 192 --partitioners uniform,cost-balanced --order plan "
                                  "--range-length 16000 --overlap 320 --align 64 --replicas 5 --no-record");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = table_rows(r.output, "partitioner", kCompareColumns);
  ASSERT_GE(rows.size(), 4u) << r.output;
  // The best by the table: the lowest p50 (column 10), the first of equals.
  std::size_t best = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (std::stod(rows[i][10]) < std::stod(rows[best][10])) best = i;
  }
  const std::string line = first_line(r.output);
  const std::string expected_start =
      "on 192 workers: " + rows[best][0] + "/" + rows[best][2] + " fastest, " + hours_of_cell(rows[best][10]) + " h (p10-p90 ";
  EXPECT_EQ(line.rfind(expected_start, 0), 0u) << line << "\n" << r.output;
  // Every other row is named with its multiple of the best's median.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == best) continue;
    char times[32];
    std::snprintf(times, sizeof times, "%.2f", std::stod(rows[i][10]) / std::stod(rows[best][10]));
    const std::string named = rows[i][0] + "/" + rows[i][2] + " " + times + " times";
    EXPECT_NE(line.find(named), std::string::npos) << named << " in " << line;
  }
  EXPECT_NE(line.find("the replicas' spread"), std::string::npos) << line;
  // The header names every order the rows have (the recorded run's tip-first rows included).
  const std::size_t header = r.output.find("queue order: ");
  ASSERT_NE(header, std::string::npos);
  const std::string header_line = r.output.substr(header, r.output.find('\n', header) - header);
  for (const auto& row : rows) EXPECT_NE(header_line.find(row[2]), std::string::npos) << row[2] << " in " << header_line;
  // The span in the sequence's own terms, its negative first ledger explained.
  EXPECT_NE(r.output.find("\nspan: ledgers -9,536 to 54,326,463 (its lowest range reaches below 0: cut at full length "
                          "down from the top, as catch-up generators cut it), 54,336,000 ledgers; 5 replicas per "
                          "combination, seed 1\n"),
            std::string::npos)
      << r.output;
  // The bound is named for what it is: of the predicted durations.
  EXPECT_NE(r.output.find("pred-lb"), std::string::npos);
  EXPECT_EQ(r.output.find(" bound "), std::string::npos);
}

// A candidate of one range per worker on a coarse model (--bins 64, README's drop-in), whose noise
// does not narrow over long ranges, is marked extrapolated; on the fine model it is not.
TEST_F(AnswersFirst, RangesFarLongerThanTheRecordedOnesOnACoarseModelAreMarkedExtrapolated) {
  const std::string coarse = scratch_->file("coarse.json");
  ASSERT_EQ(run_cli("fit --store " + store_ + " --runs pcv2 --bins 64 --quiet -o " + coarse).exit_code, 0);
  const std::string args = " --run pcv2 --workers 192 --partitioners uniform --replicas 3 --no-record --store " + store_;
  const CommandResult on_coarse = run_cli("compare --model " + coarse + args);
  ASSERT_EQ(on_coarse.exit_code, 0) << on_coarse.output;
  EXPECT_NE(first_line(on_coarse.output).find("uniform/tip-first (extrapolated)"), std::string::npos) << on_coarse.output;
  EXPECT_NE(on_coarse.output.find("(extrapolated: ranges more than 4 times the recorded ones' length"), std::string::npos);
  const CommandResult on_fine = run_cli("compare --model " + model_ + args);
  ASSERT_EQ(on_fine.exit_code, 0) << on_fine.output;
  EXPECT_EQ(on_fine.output.find("extrapolated"), std::string::npos) << on_fine.output;
}

// 3. "How many workers do I need for 24 h?": plan leads with the answer, its share of replicas on
// time, its band; it equals the curve's row for that count and the JSON answer.
TEST_F(AnswersFirst, PlanLeadsWithTheFewestWorkersAndTheirBand) {
  const std::string args = "plan --store " + store_ + " --model " + model_ +
                           " --run pcv2 --deadline 24h --max-workers 256 --replicas 5 --partitioners uniform,cost-balanced "
                           "--range-length 16000 --overlap 320 --align 64 --no-record";
  const CommandResult text = run_cli(args);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  const CommandResult json = run_cli(args + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const nlohmann::json answer = nlohmann::json::parse(json.output)["answer"];
  const int workers = answer["workers"];
  const std::string line = first_line(text.output);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(line, m, std::regex("^([0-9,]+) workers meet 24h in ([0-9]+)% of 5 replicas \\(asked: 90%\\): "
                                                    "([a-z-]+) in [a-z-]+ order, [0-9,]+ ranges, median makespan ([0-9.]+) h "
                                                    "\\(p10-p90 [0-9.]+-[0-9.]+ h\\)")))
      << line;
  EXPECT_EQ(std::stoi(m[1].str()), workers);
  EXPECT_EQ(m[3].str(), answer["partitioner"].get<std::string>());
  EXPECT_EQ(m[4].str(), hours(answer["makespan_p50_us"].get<double>()));
  EXPECT_GE(std::stoi(m[2].str()), 90);
  // The curve below it has the answer's count with the same median.
  bool found = false;
  for (const auto& row : table_rows(text.output, "workers  best", 9)) {
    if (std::stoi(row[0]) == workers) {
      found = true;
      EXPECT_EQ(row[1], m[3].str());
      EXPECT_EQ(hours_of_cell(row[4]), m[4].str());
    }
  }
  EXPECT_TRUE(found) << text.output;
  EXPECT_EQ(text.output.find("ROSE"), std::string::npos);
  EXPECT_NE(text.output.find("share of replicas on target, per candidate"), std::string::npos) << text.output;
}

// 4. "What did my run do against what was predicted?": fit leads with what the model is good for
// and how far it replays the recording, the figures the model file keeps.
TEST_F(AnswersFirst, FitLeadsWithWhatTheModelIsGoodForAndHowFarItReplays) {
  std::istringstream lines(fit_.output);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(first.rfind("model of ledgers -9,856 to 54,326,463 (its lowest range reaches below 0: cut at full length "
                        "down from the top, as catch-up generators cut it) from 3,396 recorded ranges of runs pcv2: "
                        "good for ranges of any length",
                        0),
            0u)
      << fit_.output;
  std::ifstream file(model_);
  const nlohmann::json fidelity = nlohmann::json::parse(file)["fit"]["fidelity"][0];
  const double recorded = fidelity["recorded_makespan_s"], modelled = fidelity["model_makespan_s"];
  const double recorded_longest = fidelity["recorded_longest_s"], model_longest = fidelity["model_longest_s"];
  char figures[96];
  std::snprintf(figures, sizeof figures, "makespan %+.2f%%, longest range %+.2f%%", 100 * (modelled - recorded) / recorded,
                100 * (model_longest - recorded_longest) / recorded_longest);
  EXPECT_EQ(second, std::string("replays run pcv2 (its partition on 192 workers, model durations against the recorded "
                                "ones): ") + figures);
}

// show and a replay of the same recording print two makespans that used to read as one: each is
// named, and the replay's first line sets its own beside the recording's, which for a recording
// that starts at its time 0 is show's figure.
TEST_F(AnswersFirst, ShowAndAReplayNameTheirMakespansAndAgreeOnTheRecordings) {
  const CommandResult shown = run_cli("show --store " + store_ + " pcv2");
  ASSERT_EQ(shown.exit_code, 0) << shown.output;
  std::smatch show_makespan;
  ASSERT_TRUE(std::regex_search(shown.output, show_makespan,
                                std::regex("makespan: +([0-9.]+ h) \\(first start to last end\\)")))
      << shown.output;
  const CommandResult replayed =
      run_cli("simulate --store " + store_ + " --run pcv2 --policy fixed-pool --workers 192 --no-record");
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  std::smatch answer;
  const std::string line = first_line(replayed.output);
  ASSERT_TRUE(std::regex_match(line, answer, std::regex("makespan ([0-9.]+ h) replaying run pcv2 with fixed-pool on 192 "
                                                        "workers, plan order; recorded ([0-9.]+ h) \\([-+][0-9.]+%\\), "
                                                        "both from the recording's time 0 to the last end")))
      << line;
  EXPECT_EQ(answer[2].str(), show_makespan[1].str());
  // The simulated figure is the table's makespan row below it.
  EXPECT_NE(replayed.output.find("\nmakespan                     " + answer[1].str() + " ("), std::string::npos)
      << replayed.output;
}

// fit's two makespans of one run are named for what each is: the recorded partition
// list-scheduled with the recorded durations, and the recording itself from first submit to last end.
TEST_F(AnswersFirst, FitNamesEachRecordedMakespan) {
  EXPECT_NE(fit_.output.find("makespan of the recorded partition list-scheduled: with model durations"),
            std::string::npos)
      << fit_.output;
  EXPECT_NE(fit_.output.find("vs with the recorded durations"), std::string::npos);
  const CommandResult pods = run_cli("import --store " + store_ + " --format csv --name pods " + kSource +
                                     "/examples/pods.csv");
  ASSERT_EQ(pods.exit_code, 0) << pods.output;
  const CommandResult fitted = run_cli("fit --store " + store_ + " --runs pods --quiet -o " + scratch_->file("pods.json"));
  ASSERT_EQ(fitted.exit_code, 0) << fitted.output;
  EXPECT_NE(fitted.output.find("recorded (first submit to last end): makespan"), std::string::npos) << fitted.output;
}

// A plan that cuts ranges far from the recorded lengths, on a model that could not tell their
// start-up from their per-unit work, says so at plan time.
TEST_F(AnswersFirst, PlanWarnsWhenItsRangesAreLongerThanTheFitCanTell) {
  const std::string synthetic = scratch_->file("one-length.json");
  data::CostModel({{{0, 1000}, 0, 1e6}}, "units", "synthetic").save(synthetic);
  std::ifstream in(synthetic);
  nlohmann::json file = nlohmann::json::parse(in);
  file["fit"] = {{"range_lengths", {{"split_identifiable", false}, {"shortest", 100}, {"longest", 100}, {"distinct", 1}}}};
  std::ofstream(synthetic) << file.dump();
  const std::string args = "plan --model " + synthetic + " --deadline 1h --max-workers 8 --partitioners uniform --no-record";
  const CommandResult longer = run_cli(args + " --range-count 2");
  ASSERT_EQ(longer.exit_code, 0) << longer.output;
  EXPECT_NE(longer.output.find("warning: the answer's ranges average 500 units, but the model was fitted on ranges of "
                               "100 units"),
            std::string::npos)
      << longer.output;
  const CommandResult alike = run_cli(args + " --range-count 10");
  ASSERT_EQ(alike.exit_code, 0) << alike.output;
  EXPECT_EQ(alike.output.find("warning:"), std::string::npos) << alike.output;
}

// The experiment file runs on the store README.md's blocks make (the run imported as pcv2).
TEST_F(AnswersFirst, TheExperimentFileRunsOnTheReadmesImport) {
  const CommandResult r = run_cli("compare -f " + kSource + "/examples/pcv2-experiment.yaml --store " + store_ +
                                  " --model " + model_ + " --workers 96 --replicas 2 --partitioners uniform --no-record");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(first_line(r.output).rfind("on 96 workers: ", 0), 0u) << r.output;
}

}  // namespace
}  // namespace millrace::cli
