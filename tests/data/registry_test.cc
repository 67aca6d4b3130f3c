// The registry every seam keeps its named entries in (data/registry.h): lookups, the order names
// are listed in, and the error an unknown or a twice-registered name gives.
#include "data/registry.h"

#include <functional>
#include <stdexcept>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace millrace::data {
namespace {

using ::testing::ElementsAre;

Registry<std::function<int(int)>> arithmetic() {
  Registry<std::function<int(int)>> r("operation");
  r.add("double", [](int x) { return 2 * x; }).add("negate", [](int x) { return -x; }).add("add-one", [](int x) {
    return x + 1;
  });
  return r;
}

TEST(Registry, FindsEachEntryByItsName) {
  const auto r = arithmetic();
  EXPECT_EQ(r.find("double", "--op")(21), 42);
  EXPECT_EQ(r.find("negate", "--op")(5), -5);
  EXPECT_EQ(r.find("add-one", "--op")(1), 2);
  EXPECT_EQ(r.lookup("nothing"), nullptr);
  ASSERT_NE(r.lookup("double"), nullptr);
}

TEST(Registry, ListsNamesInRegistrationOrder) {
  const auto r = arithmetic();
  EXPECT_THAT(r.names(), ElementsAre("double", "negate", "add-one"));
  EXPECT_EQ(r.known(), "double, negate, add-one");
  EXPECT_EQ(r.known("|"), "double|negate|add-one");
  ASSERT_EQ(r.entries().size(), 3u);
  EXPECT_EQ(r.entries()[2].first, "add-one");
}

TEST(Registry, AnUnknownNameNamesTheInputAndListsTheKnownOnes) {
  const auto r = arithmetic();
  try {
    r.find("tripple", "config.yaml:3");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), "config.yaml:3");
    EXPECT_EQ(e.problem(), "unknown operation 'tripple' (known: double, negate, add-one)");
  }
}

TEST(Registry, ANameRegisteredTwiceOrEmptyIsAProgrammingError) {
  auto r = arithmetic();
  EXPECT_THROW(r.add("negate", [](int x) { return x; }), std::logic_error);
  EXPECT_THROW(r.add("", [](int x) { return x; }), std::logic_error);
  EXPECT_EQ(r.find("negate", "--op")(3), -3);  // the first registration stands
  EXPECT_EQ(r.names().size(), 3u);
}

TEST(Registry, AnEmptyRegistryRefusesEveryName) {
  const Registry<int> none("thing");
  EXPECT_TRUE(none.names().empty());
  try {
    none.find("x", "--thing");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "--thing: unknown thing 'x' (known: )");
  }
}

}  // namespace
}  // namespace millrace::data
