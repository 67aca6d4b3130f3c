#include "cluster_adapter/realtime/progress_line.h"

#include <gtest/gtest.h>

#include <sstream>

namespace millrace::cluster_adapter {
namespace {

TEST(ProgressLineTest, RendersDoneTotalInFlightFailuresAndEta) {
  Progress progress{12, 200, 4, 1, 4 * 192 * data::kMicrosPerSecond, 4};
  EXPECT_EQ(render_progress(progress), "12/200 done, 4 in flight, 1 failed, ETA 3m12s");
}

TEST(ProgressLineTest, EtaIsUnknownWithoutPredictionsAndZeroWhenAllDone) {
  EXPECT_EQ(render_progress(Progress{1, 5, 1, 0, 0, 2}), "1/5 done, 1 in flight, 0 failed, ETA ?");
  EXPECT_EQ(render_progress(Progress{5, 5, 0, 0, 0, 2}), "5/5 done, 0 in flight, 0 failed, ETA 0s");
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
  line.update(Progress{1, 2, 1, 0, 0, 1});
  line.update(Progress{1, 2, 1, 0, 0, 1});
  line.update(Progress{2, 2, 0, 0, 0, 1});
  line.finish();
  EXPECT_EQ(out.str(),
            "\r1/2 done, 1 in flight, 0 failed, ETA ?\x1b[K"
            "\r2/2 done, 0 in flight, 0 failed, ETA 0s\x1b[K\n");
}

TEST(ProgressLineTest, PrintsNothingWhenNotATerminal) {
  std::ostringstream out;
  ProgressLine line(out, false);
  line.update(Progress{1, 2, 1, 0, 0, 1});
  line.finish();
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace millrace::cluster_adapter
