// One small valid input per text import format, shared by the tests that need every format: the
// text layer's BOM/CRLF test (data/import_hardening_test.cc) and the check that every registered
// format imports from the command line (cli/registries_test.cc). The two cost-profile formats
// are not text files of one kind (ethereum reads a directory), so they are given there.
#pragma once

#include <string>
#include <vector>

namespace millrace::data::testing {

struct ImportSample {
  std::string format;
  std::string file;
  std::string content;  // LF line ends
};

// A stellar log line carrying the job monitor's /metrics response with two ranges.
inline const std::string kLogLine =
    "[12:06:41 INF] job monitor query 'http://m/metrics', got response: {\"metrics\": "
    "[\"38463/16320|7|11.9441ms|46s\", \"54463/16320|8|1.5e+03ms|42s\"]}\n";

// Every format that imports a run, each with a valid input of two attempts or more.
inline std::vector<ImportSample> text_samples() {
  return {
      {"csv", "t.csv", "item,worker,duration_s\na,w,1\nb,w,2.5\n"},
      {"json", "t.json", "[{\"item\": \"a\", \"worker\": \"w\", \"duration_s\": 1},\n{\"item\": \"b\", \"duration_s\": 2}]\n"},
      {"swf", "t.swf", "; Version: 2.2\n1 0 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
                       "2 5 -1 20 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"},
      {"stellar-csv", "s.csv", "end_ledger,ledger_count,first_ledger,worker_id,tx_apply_ms,total_s\n"
                               "38463,16320,22144,7,11.9441,46\n54463,16320,38144,8,1500,42\n"},
      {"stellar-metrics", "m.txt", "38463/16320|7|11.9441|46s\n54463/16320|8|1500|42s\n"},
      {"stellar-log", "s.log", "[12:06:41 INF] No job left\n" + kLogLine + "[12:06:41 INF] Finished mission: X\n"},
      {"stellar-status", "st.json", "{\"num_remain\": 1, \"num_succeeded\": 2, \"jobs_failed\": [\"100/10|pod-1\"],\n"
                                    "\"jobs_in_progress\": [\"200/10\"], \"workers\": []}\n"},
  };
}

}  // namespace millrace::data::testing
