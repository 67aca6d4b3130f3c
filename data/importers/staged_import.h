// An import written to the store in short batches and published at once (schema.sql,
// migration 4). Its items and attempts go straight into the store's tables under a run that
// stays hidden from readers while the import is registered; they are gathered in memory up to
// kBatchRows rows and written in one short transaction, and the write lock is free while the
// next batch is parsed, so another writer (a live run, another import) waits at most one
// batch's write, and readers never wait (WAL). publish() sets the run's fields and unregisters
// the import in one short transaction: the import is all-or-nothing. An import that fails, or
// is destroyed unpublished, deletes its rows; one killed outright leaves them hidden, and the
// next import removes the rows of every import whose process (same host) is gone. Memory does
// not grow with the input: the store answers the per-item questions (is this id new, its
// latest attempt, where an attempt was read).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/importers/trace_sink.h"
#include "data/trace_store.h"

namespace millrace::data::importers {

inline constexpr std::size_t kBatchRows = 10'000;

class StagedImport : public TraceSink {
 public:
  // Removes stale imports, then registers this one with its hidden run. Throws Error naming the store.
  explicit StagedImport(TraceStore& store);
  StagedImport(const StagedImport&) = delete;
  StagedImport& operator=(const StagedImport&) = delete;
  ~StagedImport() override;  // deletes the hidden run and its rows unless published

  bool add_item(const WorkItem& item) override;
  bool has_item(const std::string& item_id) override;
  int latest_attempt(const std::string& item_id) override;
  void add_attempt(const Attempt& attempt, const std::string& where) override;
  void lay_back_to_back(const std::string& input) override;

  // Writes the run's node arrivals under the hidden run (published with it, removed with it).
  void add_node_arrivals(const std::vector<NodeArrival>& nodes);

  // Publishes the staged items and attempts as a new run (its span set from the attempts) in
  // one transaction; returns the run's id. Call once.
  std::int64_t publish(const Run& run);

  std::size_t items() const { return items_; }
  std::size_t attempts() const { return attempts_; }

 private:
  struct Statements;
  bool stored_item(const std::string& item_id);
  void flush_when_full();
  void flush();  // writes the pending rows in one transaction
  void note_span(const Attempt& attempt);

  TraceStore& store_;
  std::int64_t id_ = 0;      // the registration in staged_imports
  std::int64_t run_id_ = 0;  // the hidden run
  std::unique_ptr<Statements> statements_;
  TraceBuilder pending_;  // rows not yet written
  std::size_t items_ = 0;
  std::size_t attempts_ = 0;
  std::optional<Micros> started_;
  Micros ended_ = 0;
  bool published_ = false;
};

}  // namespace millrace::data::importers
