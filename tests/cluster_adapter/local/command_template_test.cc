#include "cluster_adapter/local/command_template.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "data/error.h"
#include "tests/support/scratch_dir.h"

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

// The message of the error a template raises ("" when it is accepted).
std::string refusal(const std::string& text) {
  try {
    CommandTemplate command(text);
  } catch (const data::Error& error) {
    return error.problem();
  }
  return "";
}

// The safe form a refusal suggests: what follows its last ": ".
std::string suggested(const std::string& text) {
  const std::string problem = refusal(text);
  const std::size_t colon = problem.rfind(": ");
  return colon == std::string::npos ? "" : problem.substr(colon + 2);
}

TEST(CommandTemplateTest, PlaceholdersInsideQuotesAreRefusedWithTheSafeForm) {
  EXPECT_EQ(suggested(R"(echo "{payload}" "{id}")"), "echo {payload} {id}");
  EXPECT_EQ(suggested("echo '{payload}'"), "echo {payload}");
  EXPECT_EQ(suggested(R"(echo "x={payload} y")"), R"(echo "x="{payload}" y")");
  EXPECT_EQ(suggested(R"(echo 'a {id} b' "{type}")"), R"(echo 'a '{id}' b' {type})");
  EXPECT_EQ(suggested(R"(echo "a'{id}")"), R"(echo "a'"{id})");
  EXPECT_EQ(suggested(R"(echo '"{id}"')"), R"(echo '"'{id}'"')");
  EXPECT_EQ(suggested(R"(echo "{id}{payload}" "\"{id}")"), R"(echo {id}{payload} "\""{id})");
  EXPECT_EQ(suggested(R"(echo "{first} {id} {last}")"), R"(echo "{first} "{id}" {last}")");
  EXPECT_EQ(suggested(R"x(echo "$(printf %s "{id}")")x"), R"x(echo "$(printf %s {id})")x");
  EXPECT_EQ(suggested(R"(awk '{{print}}' "{id}")"), R"(awk '{{print}}' {id})");
  EXPECT_EQ(suggested(R"(echo \{id})"), "echo {id}");
  const std::string message = refusal(R"(echo "{payload}")");
  EXPECT_NE(message.find("{payload} is inside double quotes"), std::string::npos) << message;
  EXPECT_NE(refusal("echo '{id}'").find("{id} is inside single quotes"), std::string::npos);
  EXPECT_NE(refusal("echo `cat {id}`").find("{id} is inside backticks"), std::string::npos);
  EXPECT_NE(refusal("echo `cat {id}`").find("use $(...) instead"), std::string::npos);
  EXPECT_NE(refusal("echo \"{payload}\" `cat {id}`")
                .find(R"(echo {payload} `cat {id}` (and {id} is inside backticks: use $(...) instead of `...`))"),
            std::string::npos);
}

TEST(CommandTemplateTest, UnquotedPlaceholdersAreAcceptedWhereverTheShellReadsAFreshWord) {
  for (const std::string& text : {std::string("w {first} {count}"), std::string("echo \"$(printf %s {id})\""),
                                  std::string("echo \"a\" {id} 'b'"), std::string("sleep 0.$(( {first} / 10 + 2 ))"),
                                  std::string("awk '{{print $1}}' {id}"), std::string("echo \\\\{id}"),
                                  std::string("echo \"a\\\"b\" {id}"), std::string("echo $(echo `true`) {id}"),
                                  // Numbers and worker names are plain in any quoting.
                                  std::string("sleep $(awk \"BEGIN {{ print {end} / 400 }}\")"),
                                  std::string("echo '{first}' \"{end_count}\" `echo {attempt}` \\{worker}")}) {
    EXPECT_EQ(refusal(text), "") << text;
  }
}

// Runs `command` with /bin/sh -c in `dir` and returns its standard output.
std::string shell_output(const std::string& command, const std::filesystem::path& dir) {
  const std::filesystem::path out = dir / "out";
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0 || !freopen(out.c_str(), "w", stdout)) _exit(126);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(out, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A stored payload "$(touch ...)" ran on resume through `cat <<EOF ... {payload} ... EOF`: a
// value in a here-document's body (or its delimiter) is refused, whatever the delimiter's
// quoting, naming the placeholder and the here-document; numbers stay plain there, and text
// after the delimiter line is read as usual again.
TEST(CommandTemplateTest, FreeTextInsideAHereDocumentIsRefusedNamingIt) {
  const std::string tail = ", where no quoting holds: the shell expands $(...) and backticks in the value when the "
                           "delimiter is unquoted, and a quoted one hands the value as text to the command reading "
                           "it (often a shell); pass it outside the here-document, as an argument (sh -s -- {";
  EXPECT_EQ(refusal("cat <<EOF\nitem {payload}\nEOF"),
            "{payload} is inside the here-document <<EOF" + tail + "payload} <<EOF ... reads it as \"$1\")");
  EXPECT_EQ(refusal("sh <<'END'\necho {id}\nEND\n").substr(0, 44), "{id} is inside the here-document <<'END', wh");
  EXPECT_EQ(refusal("cat <<-\"X\" > f; echo done\n\t{type}\n\tX").substr(0, 47),
            "{type} is inside the here-document <<-\"X\", wher");
  EXPECT_EQ(refusal("cat << EOF\nfirst line\nEOFX {payload}\nEOF").substr(0, 44),
            "{payload} is inside the here-document <<EOF,");
  EXPECT_EQ(refusal("cat <<A <<B\na\nA\n{id}\nB").substr(0, 37), "{id} is inside the here-document <<B,");
  EXPECT_EQ(refusal("cat <<{id}\nx\n").substr(0, 36), "{id} is inside the here-document <<,");
  for (const std::string& text :
       {std::string("cat <<EOF\nrange {first} to {last}, attempt {attempt} on {worker}\nEOF"),
        std::string("cat <<EOF > f\nx\nEOF\necho {payload} {id}"), std::string("cat <<-EOF\n\t\tx\n\tEOF\necho {id}"),
        std::string("grep x <<< {payload}"), std::string("echo \"<<EOF\" {payload}\necho {id}"),
        std::string("sh -s -- {payload} <<'EOF'\nprintf '[%s]' \"$1\"\nEOF")}) {
    EXPECT_EQ(refusal(text), "") << text;
  }
}

TEST(CommandTemplateTest, InjectionPayloadsThroughTheSafeFormsReachTheWorkerAsTheExactBytes) {
  const test_support::ScratchDir scratch;
  const std::filesystem::path& dir = scratch.path();
  const std::vector<std::string> payloads = {
      "$(touch pwned)", "`touch pwned`", "\"; touch pwned; \"", "'; touch pwned; '", "a\" $(touch pwned) \"b",
      "x'\"`touch pwned`\"'y", "* ? [a] ~ $HOME \\ \\\\", " lead and  trail ", "line\nbreak\ttab", "", "-n"};
  // Each refused template, its suggested form, and what the worker should print for `payload`.
  struct Case {
    std::string refused;
    std::string (*expected)(const std::string&);
  };
  const std::vector<Case> cases = {
      {R"(printf '[%s]' "{payload}" "{id}")", [](const std::string& p) { return "[" + p + "][r7]"; }},
      {"printf '[%s]' '{payload}'", [](const std::string& p) { return "[" + p + "]"; }},
      {R"(printf '[%s]' "x={payload}!")", [](const std::string& p) { return "[x=" + p + "!]"; }},
      {"printf '[%s]' 'a {payload} b'", [](const std::string& p) { return "[a " + p + " b]"; }},
      {R"x(printf '[%s]' "$(printf %s "{payload}")")x", [](const std::string& p) {
         // $(...) drops trailing newlines; none of the payloads ends with one.
         return "[" + p + "]";
       }},
  };
  // The way around a here-document the refusal suggests.
  const CommandTemplate heredoc("sh -s -- {payload} <<'EOF'\nprintf '[%s]' \"$1\"\nEOF");
  for (const std::string& payload : payloads) {
    data::WorkItem item = range_item();
    item.payload = payload;
    EXPECT_EQ(shell_output(heredoc.render(item, 1, "w"), dir), "[" + payload + "]") << payload;
    EXPECT_FALSE(std::filesystem::exists(dir / "pwned")) << heredoc.text() << " ran code from " << payload;
  }
  for (const Case& c : cases) {
    const std::string safe = suggested(c.refused);
    ASSERT_FALSE(safe.empty()) << c.refused << " was not refused";
    const CommandTemplate command(safe);
    for (const std::string& payload : payloads) {
      data::WorkItem item = range_item();
      item.payload = payload;
      EXPECT_EQ(shell_output(command.render(item, 1, "w"), dir), c.expected(payload)) << safe << " with " << payload;
      EXPECT_FALSE(std::filesystem::exists(dir / "pwned")) << safe << " ran code from " << payload;
    }
  }
}

}  // namespace
}  // namespace millrace::cluster_adapter
