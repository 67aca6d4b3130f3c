#include "cluster_adapter/command_template.h"

#include <gtest/gtest.h>

#include "data/error.h"

namespace millrace::cluster_adapter {
namespace {

data::WorkItem range_item() {
  data::WorkItem item;
  item.id = "r7";
  item.range = data::Range{100, 50};
  item.payload = std::string(1, 'x');
  return item;
}

TEST(CommandTemplateTest, SubstitutesEveryRangePlaceholderFollowingDataRange) {
  CommandTemplate command("w {first} {count} {last} {end} {end_count}");
  EXPECT_EQ(command.render(range_item(), 1, "local-0"), "w 100 50 149 150 149/50");
}

TEST(CommandTemplateTest, SubstitutesIdAttemptPayloadTypeAndWorker) {
  CommandTemplate command("w {id} {attempt} {payload} {type} {worker}");
  EXPECT_EQ(command.render(range_item(), 3, "local-2"), "w r7 3 x range local-2");
}

TEST(CommandTemplateTest, QuotesValuesSoTheyStayOneShellWord) {
  data::WorkItem item = range_item();
  item.payload = "a b; rm -rf / $(boom) 'q'";
  CommandTemplate command("echo {payload}");
  EXPECT_EQ(command.render(item, 1, "w"), "echo 'a b; rm -rf / $(boom) '\\''q'\\'''");
  item.payload = "";
  EXPECT_EQ(command.render(item, 1, "w"), "echo ''");
}

TEST(CommandTemplateTest, DoubledBracesAreLiteralBraces) {
  CommandTemplate command("awk '{{print $1}}' {id}");
  EXPECT_EQ(command.render(range_item(), 1, "w"), "awk '{print $1}' r7");
}

TEST(CommandTemplateTest, RejectsUnknownPlaceholderNamingTheTemplate) {
  try {
    CommandTemplate command("w {frist}");
    FAIL() << "expected an error";
  } catch (const data::Error& error) {
    EXPECT_EQ(error.input(), "command template 'w {frist}'");
    EXPECT_NE(error.problem().find("unknown placeholder {frist}"), std::string::npos);
  }
}

TEST(CommandTemplateTest, RejectsUnbalancedBraces) {
  EXPECT_THROW(CommandTemplate("w {first"), data::Error);
  EXPECT_THROW(CommandTemplate("w first}"), data::Error);
}

TEST(CommandTemplateTest, RangePlaceholderOnAnItemWithoutRangeNamesTheItem) {
  data::WorkItem item;
  item.id = "job-1";
  CommandTemplate command("w {first}");
  try {
    command.render(item, 1, "w");
    FAIL() << "expected an error";
  } catch (const data::Error& error) {
    EXPECT_EQ(error.input(), "work item 'job-1'");
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
