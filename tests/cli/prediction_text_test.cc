// Predicted vs actual as show prints it (cli/prediction_text.h): the makespan against its band,
// and when it falls outside because every range ran slower together, the reason named.
#include "cli/prediction_text.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace millrace::cli {
namespace {

constexpr data::Micros kPredicted = 100'000;  // each range's prediction

// 40 ranges predicted 100 ms each, on 4 workers one after another, each taking `actual`; the
// makespan band kept as a stored comparison predicted it (1 s +- 1%).
std::string printed(data::Micros actual) {
  data::Run run;
  run.id = 4;
  run.parameters = nlohmann::json{{"plan",
                                   {{"comparison", 2},
                                    {"row", 1},
                                    {"makespan_p10_us", 990'000},
                                    {"makespan_p50_us", 1'000'000},
                                    {"makespan_p90_us", 1'010'000}}}}
                       .dump();
  std::vector<data::WorkItem> items;
  std::vector<data::Attempt> attempts;
  for (int i = 0; i < 40; ++i) {
    data::WorkItem& item = items.emplace_back();
    item.id = "r" + std::to_string(i);
    item.predicted = kPredicted;
    data::Attempt& a = attempts.emplace_back();
    a.item_id = item.id;
    a.worker = "w" + std::to_string(i % 4);
    a.start = (i / 4) * actual;
    a.end = a.start + actual;
  }
  std::ostringstream out;
  print_prediction_check(run, items, attempts, 10 * actual, out);
  return out.str();
}

TEST(PredictionText, AMakespanOutsideItsBandBecauseEveryRangeRanSlowerSaysWhy) {
  const std::string slower = printed(120'000);
  EXPECT_NE(slower.find("    makespan:     1.2 s actual; comparison 2 row 1 predicted p50 1.0 s (p10 990 ms, p90 1.0 s): "
                        "+20.0%, OUTSIDE the p10-p90 band\n"),
            std::string::npos)
      << slower;
  EXPECT_NE(slower.find("all together 1.20x\n"), std::string::npos) << slower;
  EXPECT_NE(slower.find("    why:          the ranges ran 1.20x their predictions all together, more than the band's "
                        "1.0% allows: the band is each range's own noise drawn independently"),
            std::string::npos)
      << slower;

  const std::string as_predicted = printed(kPredicted);
  EXPECT_NE(as_predicted.find("+0.0%, inside the p10-p90 band"), std::string::npos) << as_predicted;
  EXPECT_EQ(as_predicted.find("why:"), std::string::npos) << as_predicted;
}

}  // namespace
}  // namespace millrace::cli
