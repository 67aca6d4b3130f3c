// Where an importer puts what it parses, one item or attempt at a time, so that a large input
// never has to be held whole: TraceBuilder (here) collects a Trace in memory (parse_input,
// tests, fuzzing); StagedImport (staged_import.h) writes to the store's staging tables in short
// batches and publishes the run in one transaction (import_file).
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "data/error.h"
#include "data/importers/trace.h"

namespace millrace::data::importers {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // Adds `item` unless one with its id was added before; returns whether it was added.
  virtual bool add_item(const WorkItem& item) = 0;
  virtual bool has_item(const std::string& item_id) = 0;
  // The number of the latest attempt added for the item, 0 when none.
  virtual int latest_attempt(const std::string& item_id) = 0;
  // Adds an attempt read at `where` ("file:line"); throws Error(where, ...) naming the earlier
  // place when the item already has an attempt with that number (a duplicated row).
  virtual void add_attempt(const Attempt& attempt, const std::string& where) = 0;
  // Lays every worker's attempts back to back from 0, in the order they were added
  // (trace.h's lay_back_to_back); `input` names the source in an overflow error.
  virtual void lay_back_to_back(const std::string& input) = 0;
};

// The Error for an attempt read at `where` whose item and number were read before at `earlier`.
Error duplicate_attempt(const Attempt& attempt, const std::string& where, const std::string& earlier);

// Adds a whole parsed trace (formats read whole, such as the stellar ones) to a sink.
void add_trace(const Trace& trace, TraceSink& sink, const std::string& input);

// A Trace in memory.
class TraceBuilder : public TraceSink {
 public:
  bool add_item(const WorkItem& item) override;
  bool has_item(const std::string& item_id) override;
  int latest_attempt(const std::string& item_id) override;
  void add_attempt(const Attempt& attempt, const std::string& where) override;
  void lay_back_to_back(const std::string& input) override;
  // The collected trace with `run` (its span set from the attempts).
  Trace finish(const Run& run);
  // Where an added attempt was read.
  const std::string& where_of(const Attempt& attempt) const { return where_.at({attempt.item_id, attempt.number}); }
  std::size_t size() const { return trace_.items.size() + trace_.attempts.size(); }
  const Trace& trace() const { return trace_; }
  void clear() { *this = TraceBuilder(); }

 private:
  Trace trace_;
  std::map<std::string, int> latest_;                        // item id -> latest attempt number
  std::map<std::pair<std::string, int>, std::string> where_;  // (item, number) -> where it was read
};

// The whole-file form of a streaming reader (`Run reader(path, sink)`): its trace in memory.
Trace read_whole(const std::string& path, Run (*reader)(const std::string&, TraceSink&));

}  // namespace millrace::data::importers
