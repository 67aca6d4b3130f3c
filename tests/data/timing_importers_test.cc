#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/importers/csv_importer.h"
#include "data/importers/importers.h"
#include "data/importers/json_importer.h"
#include "data/importers/node_arrivals_csv.h"
#include "tests/data/store_fixture.h"

namespace millrace::data {
namespace {

using importers::read_timing_csv;
using importers::read_timing_json;
using testing::TempDir;
using testing::write_file;

TEST(TimingCsvImport, ReadsRangesAttemptsAndTheirTimes) {
  TempDir dir;
  write_file(dir.file("t.csv"),
             "first,count,worker,start_s,end_s,outcome,exit_code,failure_reason,work_ms\n"
             "0,100,w1,0,4.5,failed,137,OOMKilled,\n"
             "0,100,w2,4.5,10,succeeded,0,,2500.5\n"
             "100,50,w1,5,6.000001,,,,\n");
  auto trace = read_timing_csv(dir.file("t.csv"));
  ASSERT_EQ(trace.items.size(), 2u);
  EXPECT_EQ(trace.items[0].id, "99/100");
  EXPECT_EQ(trace.items[1].range, (Range{100, 50}));
  ASSERT_EQ(trace.attempts.size(), 3u);
  EXPECT_EQ(trace.attempts[0].outcome, Outcome::kFailed);
  EXPECT_EQ(trace.attempts[0].exit_code, 137);
  EXPECT_EQ(trace.attempts[0].failure_reason, "OOMKilled");
  EXPECT_EQ(trace.attempts[1].number, 2);
  EXPECT_EQ(trace.attempts[1].start, 4'500'000);
  EXPECT_EQ(trace.attempts[1].work_time, 2'500'500);
  EXPECT_EQ(trace.attempts[2].end, 6'000'001);
  EXPECT_EQ(trace.run.started, 0);
  EXPECT_EQ(trace.run.ended, 10'000'000);
}

TEST(TimingCsvImport, DurationsWithoutStartTimesAreLaidBackToBackPerWorker) {
  TempDir dir;
  write_file(dir.file("t.csv"), "end_count,worker,duration_s\n99/100,a,3\n199/100,b,2\n299/100,a,1.5\n");
  auto trace = read_timing_csv(dir.file("t.csv"));
  ASSERT_EQ(trace.attempts.size(), 3u);
  EXPECT_EQ(trace.items[2].range, (Range{200, 100}));
  EXPECT_EQ(trace.attempts[0].start, 0);
  EXPECT_EQ(trace.attempts[1].start, 0);
  EXPECT_EQ(trace.attempts[2].start, 3'000'000);
  EXPECT_EQ(trace.attempts[2].end, 4'500'000);
}

class ExportedRun : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<TraceStore>(TraceStore::open(dir_.file("s.db")));
    write_file(dir_.file("t.csv"),
               "item,first,count,type,payload,depends_on,worker,start_s,end_s,outcome,exit_code,failure_reason,work_ms,"
               "request.cpu,request.memory,request.nvidia.com/gpu,submitted_s,unschedulable_s,scheduled_s,node\n"
               "a,0,100,range,,,w1,0,4.5,failed,137,OOMKilled,,250m,512Mi,,,,,\n"
               "a,0,100,range,,,w2,4.5,10,succeeded,0,,2500.5,250m,512Mi,,4.5,,4.5,node-2\n"
               "b,100,50,range,,a,w1,5,6.000001,succeeded,0,,0.001,2,,460m,0.25,1.5,3.000002,node-1\n"
               "\"job,1\",,,job,\"{\"\"p\"\":1}\",a b,,,,,,,,,,,,,,\n");
    run_id_ = importers::import_file(*store_, "csv", dir_.file("t.csv")).run_id;
  }
  void expect_same_run(std::int64_t other) {
    EXPECT_EQ(store_->items(other), store_->items(run_id_));
    EXPECT_EQ(store_->attempts(other), store_->attempts(run_id_));
  }
  // `run` stored with this run's items and attempts, exported as `format` (csv or json) and
  // imported back (the same items and attempts): the id of the run imported.
  std::int64_t exported_and_imported(const data::Run& run, const std::string& format) {
    const std::int64_t stored = store_->add_run(run, store_->items(run_id_), store_->attempts(run_id_));
    std::ostringstream out;
    if (format == "csv") {
      store_->export_csv(stored, out);
    } else {
      store_->export_json(stored, out);
    }
    const std::string file = dir_.file("export." + format);
    write_file(file, out.str());
    const std::int64_t again = importers::import_file(*store_, format, file).run_id;
    expect_same_run(again);
    return again;
  }
  TempDir dir_;
  std::unique_ptr<TraceStore> store_;
  std::int64_t run_id_ = 0;
};

TEST_F(ExportedRun, PhasesAreStoredWhereRecordedAndUnknownElsewhere) {
  const std::vector<Attempt> attempts = store_->attempts(run_id_);  // by start: a#1, a#2, b#1
  ASSERT_EQ(attempts.size(), 3u);
  EXPECT_FALSE(attempts[0].submitted.has_value());
  EXPECT_FALSE(attempts[0].placed.has_value());
  EXPECT_EQ(attempts[0].node, "");
  EXPECT_EQ(attempts[1].placed, 4'500'000);
  EXPECT_EQ(attempts[1].node, "node-2");
  EXPECT_EQ(attempts[2].submitted, 250'000);
  EXPECT_EQ(attempts[2].unschedulable, 1'500'000);
  EXPECT_EQ(attempts[2].placed, 3'000'002);
  EXPECT_EQ(attempts[2].node, "node-1");
  EXPECT_FALSE(attempts[1].unschedulable.has_value());
}

TEST(TimingCsvImport, PhasesOutOfOrderOrWithoutStartTimesNameTheLineAndColumn) {
  TempDir dir;
  const auto refused = [&](const std::string& csv, const std::string& expected) {
    write_file(dir.file("t.csv"), csv);
    try {
      read_timing_csv(dir.file("t.csv"));
      ADD_FAILURE() << "accepted: " << csv;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("t.csv:2"), std::string::npos) << message;
      EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
  };
  refused("item,start_s,end_s,scheduled_s\na,5,6,5.5\n", "scheduled_s is after start_s");
  refused("item,start_s,end_s,submitted_s,scheduled_s\na,5,6,4.5,4\n", "submitted_s is after scheduled_s");
  refused("item,start_s,end_s,submitted_s\na,5,6,7\n", "submitted_s is after start_s");
  refused("item,duration_s,scheduled_s\na,5,1\n", "need the attempt's start_s and end_s");
  refused("item,start_s,end_s,unschedulable_s,scheduled_s\na,5,6,4.5,4\n", "unschedulable_s is after scheduled_s");
  refused("item,start_s,end_s,unschedulable_s\na,5,6,5.5\n", "unschedulable_s is after start_s");
  refused("item,start_s,end_s,submitted_s,unschedulable_s\na,5,6,3,2\n", "submitted_s is after unschedulable_s");
  refused("item,duration_s,unschedulable_s\na,5,1\n", "need the attempt's start_s and end_s");
  // Without submitted_s a first attempt counts as submitted at the item's submit_s.
  refused("item,submit_s,start_s,end_s,unschedulable_s\na,3,5,6,2\n",
          "unschedulable_s is before the item's submit_s (a first attempt without submitted_s counts as submitted "
          "at submit_s)");
  write_file(dir.file("t.csv"), "item,submit_s,start_s,end_s,unschedulable_s\na,3,5,6,3\n");
  EXPECT_EQ(read_timing_csv(dir.file("t.csv")).attempts.at(0).unschedulable, 3'000'000);  // at submit_s: fine
}

TEST_F(ExportedRun, NodeArrivalsImportBesideTheRunAndExportBackUnchanged) {
  write_file(dir_.file("nodes.csv"), "node,pool,created_s,ready_s\nnode-1,gpu,0.5,2.75\nnode-2,,,4\n\"n,3\",cpu,1,\n");
  importers::ImportOptions options;
  options.name = "with nodes";
  options.nodes_file = dir_.file("nodes.csv");
  const auto result = importers::import_file(*store_, "csv", dir_.file("t.csv"), options);
  EXPECT_EQ(result.node_arrivals, 3u);
  const std::vector<NodeArrival> expected = {
      {"node-2", "", std::nullopt, 4'000'000}, {"node-1", "gpu", 500'000, 2'750'000}, {"n,3", "cpu", 1'000'000, std::nullopt}};
  EXPECT_EQ(store_->node_arrivals(result.run_id), expected);
  EXPECT_TRUE(store_->node_arrivals(run_id_).empty());  // the run imported without --nodes has none
  std::ostringstream out;
  importers::write_node_arrivals_csv(store_->node_arrivals(result.run_id), out);
  write_file(dir_.file("again.csv"), out.str());
  EXPECT_EQ(importers::read_node_arrivals_csv(dir_.file("again.csv")), expected);
}

// Departures, capacity types and spot nodes there before the run import and export back; a file
// without those columns reads as before (no departure, type unknown).
TEST_F(ExportedRun, NodeDeparturesAndCapacityTypesImportAndExportBack) {
  write_file(dir_.file("nodes.csv"),
             "node,pool,created_s,ready_s,departed_s,capacity_type,present_at_start\n"
             "s1,cheap,1,2,3600,spot,0\ns0,cheap,,,7200,spot,1\nd1,steady,1,2,,on-demand,\nu1,,,,,,\n");
  importers::ImportOptions options;
  options.name = "with departures";
  options.nodes_file = dir_.file("nodes.csv");
  const auto result = importers::import_file(*store_, "csv", dir_.file("t.csv"), options);
  const std::vector<NodeArrival> expected = {
      {"s0", "cheap", std::nullopt, std::nullopt, 7'200'000'000, "spot", true},
      {"u1", "", std::nullopt, std::nullopt, std::nullopt, "", false},
      {"d1", "steady", 1'000'000, 2'000'000, std::nullopt, "on-demand", false},
      {"s1", "cheap", 1'000'000, 2'000'000, 3'600'000'000, "spot", false}};
  EXPECT_EQ(store_->node_arrivals(result.run_id), expected);
  std::ostringstream out;
  importers::write_node_arrivals_csv(store_->node_arrivals(result.run_id), out);
  write_file(dir_.file("again.csv"), out.str());
  EXPECT_EQ(importers::read_node_arrivals_csv(dir_.file("again.csv")), expected);
}

TEST_F(ExportedRun, AMalformedNodesFileIsRefusedByLineAndNothingIsImported) {
  const auto refused = [&](const std::string& csv, const std::string& where, const std::string& expected) {
    write_file(dir_.file("nodes.csv"), csv);
    importers::ImportOptions options;
    options.name = "refused";
    options.nodes_file = dir_.file("nodes.csv");
    try {
      importers::import_file(*store_, "csv", dir_.file("t.csv"), options);
      ADD_FAILURE() << "accepted: " << csv;
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("nodes.csv:" + where), std::string::npos) << message;
      EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
    EXPECT_EQ(store_->runs().size(), 1u);
    EXPECT_EQ(store_->count_rows("node_arrivals"), 0);
  };
  refused("node,pool,created_s,ready_s\nn1,a,5,4\n", "2", "ready_s is before created_s");
  refused("node,pool,created_s,ready_s\nn1,a,1,2\nn1,b,3,4\n", "3", "node 'n1' is given twice (also at");
  refused("node,zone\nn1,a\n", "1", "unknown column 'zone'");
  refused("pool,ready_s\na,1\n", "1", "no node column");
  refused("node,ready_s\n,1\n", "2", "empty node name");
  refused("node,ready_s\nn1,soon\n", "2", "ready_s");
  refused("node,ready_s,departed_s\nn1,10,5\n", "2", "departed_s is before the node was created or ready");
  refused("node,departed_s\nn1,-5\n", "2", "departed_s");
  refused("node,capacity_type\nn1,preemptible\n", "2", "capacity_type 'preemptible' is none of spot, on-demand");
  refused("node,present_at_start\nn1,yes\n", "2", "present_at_start 'yes' is none of 1, 0");
}

TEST_F(ExportedRun, RequestsAreStoredInMilliUnits) {
  const std::vector<WorkItem> items = store_->items(run_id_);
  EXPECT_EQ(items[0].requests, (data::Quantities{{"cpu", 250}, {"memory", 536'870'912'000}}));
  EXPECT_EQ(items[1].requests, (data::Quantities{{"cpu", 2000}, {"nvidia.com/gpu", 460}}));
  EXPECT_TRUE(items[2].requests.empty());
  EXPECT_EQ(store_->count_rows("item_requests", run_id_), 4);
}

TEST_F(ExportedRun, CsvExportImportsBackUnchanged) {
  std::ostringstream out;
  store_->export_csv(run_id_, out);
  write_file(dir_.file("export.csv"), out.str());
  expect_same_run(importers::import_file(*store_, "csv", dir_.file("export.csv")).run_id);
  EXPECT_EQ(store_->items(run_id_).size(), 3u);
  EXPECT_EQ(store_->items(run_id_)[2].depends_on, (std::vector<std::string>{"a", "b"}));
}

TEST_F(ExportedRun, CsvExportImportsBackWithTheRunsUnits) {
  data::Run counted;
  counted.name = "counted";
  counted.units = "ledgers";
  EXPECT_EQ(store_->run(exported_and_imported(counted, "csv")).units, "ledgers");
}

TEST(TimingCsvImport, RowsDisagreeingOnTheRunsUnitsNameTheLineAndBothUnits) {
  TempDir dir;
  write_file(dir.file("t.csv"), "item,worker,duration_s,units\na,w,1,ledgers\nb,w,2,blocks\n");
  EXPECT_THAT([&] { read_timing_csv(dir.file("t.csv")); },
              ::testing::ThrowsMessage<Error>(::testing::StrEq(
                  dir.file("t.csv") + ":3: units 'blocks' differ from the first row's 'ledgers' (a run has one unit)")));
}

TEST_F(ExportedRun, JsonExportImportsBackUnchangedWithItsRunFields) {
  data::Run meta;
  meta.name = "meta";
  meta.units = "ledgers";
  meta.policy = "fixed-pool";
  meta.parameters = R"({"workers":2})";
  const std::int64_t again = exported_and_imported(meta, "json");
  EXPECT_EQ(store_->run(again).units, "ledgers");
  EXPECT_EQ(store_->run(again).policy, "fixed-pool");
  EXPECT_EQ(store_->run(again).parameters, R"({"workers":2})");
  EXPECT_EQ(store_->run(again).name, "export");
}

TEST(TimingCsvImport, MalformedRequestNamesFileLineColumnAndText) {
  TempDir dir;
  write_file(dir.file("t.csv"), "item,duration_s,request.cpu\na,1,250m\nb,1,1.5x\n");
  try {
    read_timing_csv(dir.file("t.csv"));
    FAIL() << "a malformed quantity must be refused";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("t.csv:3"), std::string::npos) << message;
    EXPECT_NE(message.find("request.cpu"), std::string::npos) << message;
    EXPECT_NE(message.find("'1.5x'"), std::string::npos) << message;
  }
  write_file(dir.file("u.csv"), "item,duration_s,request.\na,1,1\n");
  EXPECT_THROW(read_timing_csv(dir.file("u.csv")), Error);
}

TEST(TimingJsonImport, ReadsRequestsGivenAsNumbersOrQuantities) {
  TempDir dir;
  write_file(dir.file("t.json"), R"([{"item": "a", "duration_s": 1, "request.cpu": 2, "request.memory": "1Gi"}])");
  auto trace = read_timing_json(dir.file("t.json"));
  EXPECT_EQ(trace.items[0].requests, (data::Quantities{{"cpu", 2000}, {"memory", 1'073'741'824'000}}));
}

TEST(TimingJsonImport, ReadsABareArrayOfRows) {
  TempDir dir;
  write_file(dir.file("t.json"), R"([{"end_count":"99/100","worker":"w","duration_s":2,"work_ms":1500}])");
  auto trace = read_timing_json(dir.file("t.json"));
  ASSERT_EQ(trace.attempts.size(), 1u);
  EXPECT_EQ(trace.items[0].range, (Range{0, 100}));
  EXPECT_EQ(trace.attempts[0].end, 2'000'000);
  EXPECT_EQ(trace.attempts[0].work_time, 1'500'000);
}

}  // namespace
}  // namespace millrace::data
