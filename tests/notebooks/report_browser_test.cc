// `millrace report`'s page in a real browser (Debian's chromium, headless, the live page's
// harness): on the notebooks' fixture store (make_store.sh: the bundled recording, its model, a
// compare and a plan), index.html shows every figure, each image loads (not broken) at the size
// of its PNG file, and the figures carry what the store says: the plan's deadline and chosen
// worker count, its band, the compared partitioners, the cost model against as many recorded
// ranges as the run has. A screenshot is kept in the build tree (test-artefacts/report.png).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"
#include "tests/cluster_adapter/http/page_dom.h"
#include "tests/support/headless_chromium.h"
#include "tests/support/scratch_dir.h"

namespace millrace {
namespace {

using test_support::attribute;
using test_support::HeadlessChromium;
using test_support::tag_by_id;
using test_support::tags_having;

const std::filesystem::path kWork = MILLRACE_NOTEBOOKS_WORK;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Width and height of a PNG file, from its IHDR chunk (big-endian, bytes 16 to 23).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::filesystem::path& path) {
  const std::string bytes = read_file(path);
  EXPECT_GE(bytes.size(), 24u) << path;
  EXPECT_EQ(bytes.substr(1, 3), "PNG") << path;
  if (bytes.size() < 24) return {0, 0};
  const auto word = [&bytes](std::size_t at) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
    return value;
  };
  return {word(16), word(20)};
}

// The first column of every row `sql` returns, as text.
std::vector<std::string> query(const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> values;
  EXPECT_EQ(sqlite3_open_v2((kWork / "store.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
    values.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return values;
}

// index.html with a script that, once the page has loaded, writes down on each image whether it
// loaded and its size as the browser decoded it.
constexpr const char* kProbe = R"(<script>
window.addEventListener('load', () => {
  for (const img of document.images) {
    img.dataset.loaded = img.complete && img.naturalWidth > 0 ? 'yes' : 'no';
    img.dataset.size = img.naturalWidth + 'x' + img.naturalHeight;
  }
  document.body.dataset.probed = 'yes';
});
</script>
</body>)";

class ReportPage : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(HeadlessChromium::missing(), ""); }
  test_support::ScratchDir scratch;
};

TEST_F(ReportPage, EveryFigureLoadsAndCarriesWhatTheStoreSays) {
  const std::filesystem::path out = scratch.path() / "report";
  const auto report = test_support::run_cli("report --store " + (kWork / "store.db").string() + " --model " +
                                            (kWork / "model.json").string() + " -o " + out.string());
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::string page = read_file(out / "index.html");
  const std::size_t end = page.rfind("</body>");
  ASSERT_NE(end, std::string::npos) << page;
  page.replace(end, 7, kProbe);
  std::ofstream(out / "probe.html") << page;

  HeadlessChromium browser(scratch.path());
  const std::string dom = browser.dump_dom("file://" + (out / "probe.html").string());
  ASSERT_NE(dom.find("data-probed=\"yes\""), std::string::npos) << "the page never finished loading: " << dom;

  // Every figure the fixture has data for, each image loaded at its file's size.
  std::set<std::string> figures;
  for (const std::string& tag : tags_having(dom, "data-legend")) figures.insert(attribute(tag, "id").value_or(""));
  EXPECT_EQ(figures, (std::set<std::string>{"run_durations", "run_gantt", "run_tail", "model_coefficients",
                                            "model_fit", "compare", "plan", "real_vs_simulated"}));
  const std::vector<std::string> images = tags_having(dom, "data-loaded");
  EXPECT_EQ(images.size(), figures.size());
  for (const std::string& image : images) {
    const std::string source = attribute(image, "src").value_or("");
    EXPECT_EQ(attribute(image, "data-loaded"), "yes") << source << " is broken";
    const auto [width, height] = png_size(out / source);
    EXPECT_GT(width, 100u) << source;
    EXPECT_EQ(attribute(image, "data-size"), std::to_string(width) + "x" + std::to_string(height)) << source;
  }

  // The plan: its deadline (time_unit: hours for a span of 3 h or more) and the worker count it
  // answered, as stored; the band over the replicas and each candidate's own curve.
  const nlohmann::json plan = nlohmann::json::parse(
      query("SELECT parameters FROM comparisons WHERE kind = 'plan' ORDER BY id DESC LIMIT 1").at(0));
  const std::string plan_legend = attribute(tag_by_id(dom, "plan"), "data-legend").value_or("");
  char deadline[32];
  std::snprintf(deadline, sizeof deadline, "deadline %.2f h", plan["deadline_us"].get<double>() / 3.6e9);
  EXPECT_NE(plan_legend.find(deadline), std::string::npos) << plan_legend;
  EXPECT_NE(plan_legend.find("chosen: " + plan["answer_workers"].dump() + " workers, "), std::string::npos)
      << plan_legend;
  EXPECT_NE(plan_legend.find("p10\u2013p90 of the makespan over the replicas"), std::string::npos) << plan_legend;
  const std::string plan_id = query("SELECT max(id) FROM comparisons WHERE kind = 'plan'").at(0);
  for (const std::string& partitioner :
       query("SELECT DISTINCT partitioner FROM comparison_rows WHERE comparison_id = " + plan_id)) {
    EXPECT_NE(plan_legend.find(" | " + partitioner + " | "), std::string::npos) << partitioner << ": " << plan_legend;
  }

  // The candidates side by side: every partitioner the compare ran, and the contiguous bound.
  const std::string compare_id = query("SELECT max(id) FROM comparisons WHERE kind = 'compare'").at(0);
  const std::string compare_legend = attribute(tag_by_id(dom, "compare"), "data-legend").value_or("");
  for (const std::string& partitioner :
       query("SELECT DISTINCT partitioner FROM comparison_rows WHERE comparison_id = " + compare_id)) {
    EXPECT_NE(compare_legend.find(partitioner), std::string::npos) << partitioner << ": " << compare_legend;
  }
  EXPECT_NE(compare_legend.find("best any contiguous partition could reach"), std::string::npos) << compare_legend;

  // The cost model along the sequence with the recorded points: every succeeded range of the run.
  const std::string ranges = query(
      "SELECT count(*) FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.name = 'pcv2' AND "
      "a.outcome = 'succeeded'").at(0);
  const std::string model_fit = attribute(tag_by_id(dom, "model_fit"), "data-titles").value_or("");
  EXPECT_NE(model_fit.find("recorded vs predicted along the sequence"), std::string::npos) << model_fit;
  EXPECT_NE(model_fit.find(", " + ranges + " ranges)"), std::string::npos) << ranges << ": " << model_fit;
  const std::string model_legend = attribute(tag_by_id(dom, "model_fit"), "data-legend").value_or("");
  EXPECT_NE(model_legend.find("recorded"), std::string::npos) << model_legend;
  EXPECT_NE(model_legend.find("predicted by the model"), std::string::npos) << model_legend;

  // A screenshot to look at, kept in the build tree.
  const std::filesystem::path artefacts(MILLRACE_ARTEFACT_DIR);
  std::filesystem::create_directories(artefacts);
  browser.screenshot("file://" + (out / "index.html").string(), artefacts / "report.png", 1300, 2400);
  EXPECT_GT(std::filesystem::file_size(artefacts / "report.png"), 10'000u);
}

}  // namespace
}  // namespace millrace
