// The pool running several comparisons at once: each comparison's rows are those it gives alone
// on one thread, whatever the ranks, the thread count or what else runs; errors stay with their
// comparison; simulations are reported in order.
#include "sim/sweep_pool.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "data/cost_model.h"
#include "data/duration_noise.h"
#include "data/error.h"

namespace millrace::sim {
namespace {

constexpr data::Micros kSecond = data::kMicrosPerSecond;

// 1 s/unit on [0, 800), 4 s/unit on [800, 1000), with noise so replicas differ.
data::CostModel noisy_model() {
  data::CostModel model({{{0, 800}, 0, 1e6}, {{800, 200}, 0, 4e6}}, "units", "synthetic");
  model.set_noise(data::DurationNoise({{0, {0.5, 1.5}}}));
  return model;
}

ComparisonSpec spec_for(const data::CostModel& model, int workers) {
  ComparisonSpec spec;
  spec.model = &model;
  spec.span = {0, 1000};
  spec.partitioners = {"uniform", "cost-balanced", "optimal"};
  spec.orders = {scheduler::QueueOrder::kPlan, scheduler::QueueOrder::kLongestFirst};
  spec.workers = {workers};
  spec.replicas = 5;
  spec.seed = 3;
  spec.base.cluster.fail_prob = 0.1;
  spec.base.cluster.startup.samples = {1 * kSecond, 7 * kSecond, 20 * kSecond};
  spec.threads = 1;
  return spec;
}

SweepPool::MakeRun make(const ComparisonSpec& spec) {
  return [spec] { return std::make_unique<ComparisonRun>(spec); };
}

TEST(SweepPool, ComparisonsRunTogetherGiveTheRowsEachGivesAlone) {
  const data::CostModel model = noisy_model();
  const std::vector<int> counts = {1, 2, 3, 5, 8, 13};
  std::vector<std::string> alone;
  for (int w : counts) alone.push_back(to_json(run_comparison(spec_for(model, w))).dump());
  for (unsigned threads : {1u, 2u, 3u}) {
    SweepPool pool(threads);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      pool.queue(counts[i], static_cast<long>(counts.size() - i), make(spec_for(model, counts[i])));
    }
    pool.queue(8, -1, make(spec_for(model, 999)));  // queued already: only its rank changes
    for (std::size_t i = counts.size(); i-- > 0;) {
      EXPECT_EQ(to_json(pool.wait(counts[i])).dump(), alone[i]) << counts[i] << " workers, " << threads << " threads";
    }
  }
}

TEST(SweepPool, AnErrorStaysWithItsComparison) {
  const data::CostModel model = noisy_model();
  ComparisonSpec bad = spec_for(model, 4);
  bad.replicas = 0;
  SweepPool pool(2);
  pool.queue(1, 0, make(bad));
  pool.queue(2, 0, make(spec_for(model, 2)));
  try {
    pool.wait(1);
    FAIL() << "no error";
  } catch (const data::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--replicas 0"), std::string::npos) << e.what();
  }
  EXPECT_EQ(to_json(pool.wait(2)).dump(), to_json(run_comparison(spec_for(model, 2))).dump());
}

TEST(SweepPool, ADroppedComparisonIsForgotten) {
  const data::CostModel model = noisy_model();
  SweepPool pool(2);
  pool.queue(1, 0, make(spec_for(model, 1)));
  pool.queue(2, 1, make(spec_for(model, 2)));
  EXPECT_TRUE(pool.queued(2));
  pool.drop(2);
  EXPECT_FALSE(pool.queued(2));
  EXPECT_THROW(pool.wait(2), std::logic_error);
  EXPECT_EQ(pool.wait(1).rows.size(), 6u);
  pool.queue(2, 0, make(spec_for(model, 2)));  // queued again: made afresh
  EXPECT_EQ(to_json(pool.wait(2)).dump(), to_json(run_comparison(spec_for(model, 2))).dump());
}

TEST(SweepPool, SimulationsAreReportedOneByOneOutOfTheirTotal) {
  const data::CostModel model = noisy_model();
  ComparisonSpec spec = spec_for(model, 3);
  spec.threads = 2;
  std::vector<std::int64_t> done;
  spec.progress = [&done](std::int64_t d, std::int64_t total) {
    EXPECT_EQ(total, 30);  // 3 partitioners x 2 orders x 5 replicas
    done.push_back(d);
  };
  run_comparison(spec);
  ASSERT_EQ(done.size(), 30u);
  for (std::size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i], static_cast<std::int64_t>(i + 1));
}

}  // namespace
}  // namespace millrace::sim
