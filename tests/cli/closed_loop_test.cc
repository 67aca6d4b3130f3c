// The closed loop on this machine, end to end: record, fit, plan, run what plan chose, and set
// the run against its prediction. Alone in its test program so that ctest runs it with nothing
// else (RUN_SERIAL): its runs are timed on a real clock, and a machine busy with other tests in
// the middle of it moves every range at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "data/trace_store.h"
#include "tests/cli/cli_process.h"

namespace millrace {
namespace {

using cli_test::CliResult;

class ClosedLoop : public cli_test::CliRunTest {};

// The closed loop on this machine, end to end: four recorded runs of a worker whose durations
// follow a known profile with noise (tests/cli/profile_worker.sh), a model fitted from them, a plan
// of 240 ranges, that plan run for real, and show setting it against its prediction. A whole run
// on a shared machine moves by several percent at once (measured: -0.3% to -6% on a quiet
// machine, 0.6x when the recordings were made under load); from four runs the fit learns how
// much (data/run_spread.h), so the band is not the ranges' own noise alone (about +-1% for 240
// ranges). The run is checked to come out near its prediction: whether it falls inside p10-p90
// is a matter of chance (one run in five should not), which show then names.
TEST_F(ClosedLoop, ALocalRunOfWhatPlanChoseComesOutNearItsPrediction) {
  const std::string worker = std::string(MILLRACE_SOURCE_DIR) + "/tests/cli/profile_worker.sh {first} {count}";
  // Ranges of 200, 100 and 50 units (the plan's length, twice): its predictions need no split of
  // start-up from per-unit work that the lengths may leave unidentified.
  for (const auto& [name, ranges] :
       {std::pair{"a", "60"}, std::pair{"b", "240"}, std::pair{"c", "120"}, std::pair{"d", "240"}}) {
    const CliResult recorded = run({"run", "--store", store, "--name", name, "--span", "0:11999", "--partitioner",
                                    "uniform", "--range-count", ranges, "--workers", "8", "--command", worker});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  }
  const std::string fitted_model = (dir / "fitted.json").string();
  const CliResult fitted = run({"fit", "--store", store, "--runs", "a,b,c,d", "-o", fitted_model});
  ASSERT_EQ(fitted.exit_code, 0) << fitted.err;
  EXPECT_NE(fitted.out.find("run to run: each run's ranges together took "), std::string::npos) << fitted.out;
  EXPECT_NE(fitted.out.find("Student's t with 3 degrees of freedom: wide while runs are few"), std::string::npos) << fitted.out;

  const CliResult planned = run({"plan", "--store", store, "--model", fitted_model, "--span", "0:11999", "--deadline",
                                 "1h", "--min-workers", "8", "--max-workers", "8", "--partitioners", "uniform",
                                 "--range-count", "240", "--replicas", "20", "--json", "--quiet"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const nlohmann::json answer = nlohmann::json::parse(planned.out).at("answer");
  ASSERT_EQ(answer.at("workers"), 8);
  const CliResult ran = run({"run", "--store", store, "--name", "planned", "--plan", "1", "--command", worker});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;

  data::TraceStore trace = data::TraceStore::open(store);
  const std::int64_t id = trace.find_run("planned");
  ASSERT_EQ(trace.items(id).size(), 240u);
  double actual = 0, predicted = 0;
  data::Micros first_start = std::numeric_limits<data::Micros>::max(), last_end = 0;
  for (const data::Attempt& a : trace.attempts(id)) {
    actual += static_cast<double>(a.end - a.start);
    first_start = std::min(first_start, a.start);
    last_end = std::max(last_end, a.end);
  }
  for (const data::WorkItem& item : trace.items(id)) predicted += static_cast<double>(item.predicted);
  EXPECT_NEAR(actual / predicted, 1.0, 0.25) << "the ranges' durations against the model fitted from the recordings";
  const auto makespan = static_cast<double>(last_end - first_start);
  const auto p50 = answer.at("makespan_p50_us").get<double>();
  EXPECT_NEAR(makespan / p50, 1.0, 0.25) << "actual makespan " << makespan << " us, predicted p50 " << p50 << " us";

  const CliResult shown = run({"show", "--store", store, "planned"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find(" actual; comparison 1 row "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("    ranges:       240 with a prediction;"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("    calibration:  "), std::string::npos) << shown.out;
}

}  // namespace
}  // namespace millrace
