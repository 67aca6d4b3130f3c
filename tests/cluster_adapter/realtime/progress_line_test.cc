#include "cluster_adapter/realtime/progress_line.h"

#include <gtest/gtest.h>

#include <sstream>

namespace millrace::cluster_adapter {
namespace {

TEST(ProgressLineTest, RendersDoneTotalInFlightFailuresAndEta) {
  Progress progress{12, 200, 4, 1, 4 * 192 * data::kMicrosPerSecond, 4, std::nullopt};
  EXPECT_EQ(render_progress(progress), "12/200 done, 4 in flight, 1 failed, ETA 3m12s");
}

TEST(ProgressLineTest, EtaIsUnknownWithoutPredictionsAndZeroWhenAllDone) {
  EXPECT_EQ(render_progress(Progress{1, 5, 1, 0, 0, 2, std::nullopt}), "1/5 done, 1 in flight, 0 failed, ETA ?");
  EXPECT_EQ(render_progress(Progress{5, 5, 0, 0, 0, 2, std::nullopt}), "5/5 done, 0 in flight, 0 failed, ETA 0s");
}

// The learning ETA's band replaces the predictions alone, and says when the run is outside the model.
TEST(ProgressLineTest, TheLearntBandGivesTheEtaAndSaysWhenTheRunIsOutsideTheModel) {
  EtaBand band;
  band.expected = 20 * data::kMicrosPerSecond;
  band.observed = 30;
  band.run_ratio = 0.1;
  band.outside_model = true;
  EXPECT_EQ(render_progress(Progress{30, 200, 4, 0, 4 * 192 * data::kMicrosPerSecond, 4, band}),
            "30/200 done, 4 in flight, 0 failed, ETA 20s (ranges run 0.10x the model)");
  band.outside_model = false;
  EXPECT_EQ(render_progress(Progress{30, 200, 4, 0, 4 * 192 * data::kMicrosPerSecond, 4, band}),
            "30/200 done, 4 in flight, 0 failed, ETA 20s");
}

TEST(ProgressLineTest, DurationsRoundUpToWholeSecondsAndScaleTheirUnits) {
  EXPECT_EQ(render_duration(1), "1s");
  EXPECT_EQ(render_duration(59 * data::kMicrosPerSecond), "59s");
  EXPECT_EQ(render_duration(61 * data::kMicrosPerSecond), "1m01s");
  EXPECT_EQ(render_duration(2 * data::kMicrosPerHour + 5 * 60 * data::kMicrosPerSecond), "2h05m");
}

TEST(ProgressLineTest, DrawsInPlaceOnATerminalAndSkipsUnchangedLines) {
  std::ostringstream out;
  ProgressLine line(out, true);
  line.update(Progress{1, 2, 1, 0, 0, 1, std::nullopt});
  line.update(Progress{1, 2, 1, 0, 0, 1, std::nullopt});
  line.update(Progress{2, 2, 0, 0, 0, 1, std::nullopt});
  line.finish();
  EXPECT_EQ(out.str(),
            "\r1/2 done, 1 in flight, 0 failed, ETA ?\x1b[K"
            "\r2/2 done, 0 in flight, 0 failed, ETA 0s\x1b[K\n");
}

TEST(ProgressLineTest, PrintsNothingWhenNotATerminal) {
  std::ostringstream out;
  ProgressLine line(out, false);
  line.update(Progress{1, 2, 1, 0, 0, 1, std::nullopt});
  line.finish();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace millrace::cluster_adapter
