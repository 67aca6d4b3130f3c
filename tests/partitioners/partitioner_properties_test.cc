// Property-style checks: every registered generator's output passes the shared validator on
// seeded random spans and parameters, and has no more ranges than the generator's own bound.
#include <random>

#include <gtest/gtest.h>

#include "data/cost_model.h"
#include "data/uniform_draws.h"
#include "partitioners/registry.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {
namespace {

// A random piecewise-constant model covering [lo, hi), some bins free of work.
data::CostModel random_model(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  const auto n = data::integer_draw(rng, 1, 12);
  std::vector<data::CostBin> out;
  const std::int64_t width = std::max<std::int64_t>(1, (hi - lo) / n);
  for (std::int64_t x = lo; x < hi; x += width) {
    const double d = rng() % 4 == 0 ? 0 : data::real_draw(rng, 0, 50);
    out.push_back({{x, std::min(width, hi - x)}, data::real_draw(rng, 0, 500), d});
  }
  return data::CostModel(out);
}

TEST(PartitionerProperties, EveryGeneratorsOutputPassesTheValidatorOnRandomSpansAndParameters) {
  std::mt19937_64 rng(20241119);
  const std::int64_t aligns[] = {1, 1, 8, 64};
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PartitionParams params;
    const std::int64_t first = data::integer_draw(rng, -50'000, 50'000);
    params.span = {first, data::integer_draw(rng, 1, 2'000'000)};
    params.align = aligns[rng() % 4];
    params.overlap = static_cast<std::int64_t>(rng() % 3) * 160;
    const std::int64_t capacity = std::max<std::int64_t>(1, params.span.count / (4 * params.align));
    params.ranges = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(std::min<std::int64_t>(capacity, 500)));
    params.workers = 1 + static_cast<int>(rng() % 64);
    params.floor = params.align * (1 + static_cast<std::int64_t>(rng() % 100));
    const data::CostModel model = random_model(rng, params.span.first - 100, params.span.end() + 100);
    params.model = &model;
    for (const std::string& name : partitioner_names()) {
      PartitionParams p = params;
      if (name == "uniform" && rng() % 2 == 0) {
        p.ranges = 0;
        p.range_length = params.align * (1 + static_cast<std::int64_t>(rng() % 5000));
      }
      if (name == "optimal" && rng() % 2 == 0) p.ranges = 0;  // let it choose the count
      SCOPED_TRACE(name + " span " + std::to_string(p.span.first) + "+" + std::to_string(p.span.count) + " align " +
                   std::to_string(p.align) + " ranges " + std::to_string(p.ranges));
      const Partition partition = make_partition(name, p);
      EXPECT_NO_THROW(validate(partition, p, name));
      // The bound a command checks memory against (cli/partition_size.h) holds for the real cut.
      EXPECT_LE(static_cast<double>(partition.ranges.size()), find_partitioner(name).most_ranges(p).ranges);
      if (name != "optimal" && name != "logarithmic" && p.ranges > 0) {
        EXPECT_EQ(static_cast<std::int64_t>(partition.ranges.size()), p.ranges);
      }
      if (name == "optimal" && p.ranges > 0) {
        EXPECT_LE(static_cast<std::int64_t>(partition.ranges.size()), p.ranges);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 300 * 4);
}

TEST(PartitionerProperties, WorkRangesExtendEachRangeBackByTheOverlap) {
  PartitionParams params;
  params.span = {0, 1000};
  params.ranges = 4;
  params.overlap = 10;
  const Partition p = make_partition("uniform", params);
  const std::vector<data::Range> work = p.work_ranges();
  ASSERT_EQ(work.size(), 4u);
  EXPECT_EQ(work[0], (data::Range{-10, 260}));
  EXPECT_EQ(work[3], (data::Range{740, 260}));
}

}  // namespace
}  // namespace millrace::partitioners
