#include "data/records.h"

#include <gtest/gtest.h>

#include "data/error.h"

namespace millrace::data {
namespace {

TEST(Range, EndCountNamesTheInclusiveLastUnitAndTheCount) {
  Range r{6144, 16320};
  EXPECT_EQ(r.last(), 22463);
  EXPECT_EQ(r.end(), 22464);
  EXPECT_EQ(r.end_count(), "22463/16320");
}

TEST(Outcome, RoundTripsThroughItsName) {
  for (Outcome o : {Outcome::kSucceeded, Outcome::kFailed, Outcome::kCancelled, Outcome::kRunning}) {
    EXPECT_EQ(outcome_from_string(to_string(o), "test"), o);
  }
}

TEST(Outcome, UnknownNameIsAnErrorNamingTheInput) {
  try {
    outcome_from_string("exploded", "trace.csv:7");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "trace.csv:7");
    EXPECT_NE(std::string(e.what()).find("exploded"), std::string::npos);
  }
}

TEST(RunSource, RoundTripsThroughItsName) {
  for (RunSource s : {RunSource::kRecorded, RunSource::kImported, RunSource::kSimulated, RunSource::kReal}) {
    EXPECT_EQ(run_source_from_string(to_string(s), "test"), s);
  }
}

}  // namespace
}  // namespace millrace::data
