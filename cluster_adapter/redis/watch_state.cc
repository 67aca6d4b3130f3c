#include "cluster_adapter/redis/watch_state.h"

#include "data/sqlite_db.h"

namespace millrace::cluster_adapter {

WatchState load_watch_state(const data::TraceStore& store, std::int64_t run_id) {
  WatchState state;
  data::Statement beats(store.handle(), store.path(),
                        "SELECT worker, last_seen_us FROM watch_heartbeats WHERE run_id = ?");
  beats.bind(1, run_id);
  while (beats.step()) state.last_heartbeat[beats.text(0)] = beats.int64(1);
  data::Statement holds(store.handle(), store.path(),
                        "SELECT item_id, worker, since_us FROM watch_holds WHERE run_id = ?");
  holds.bind(1, run_id);
  while (holds.step()) state.holds[holds.text(0)] = {holds.text(1), holds.int64(2)};
  return state;
}

void save_watch_state(data::TraceStore& store, std::int64_t run_id, const WatchState& state) {
  sqlite3* db = store.handle();
  const std::string& input = store.path();
  data::Transaction transaction(db, input);
  for (const char* table : {"watch_heartbeats", "watch_holds"}) {
    data::Statement(db, input, std::string("DELETE FROM ") + table + " WHERE run_id = ?").bind(1, run_id).run();
  }
  data::Statement beat(db, input, "INSERT INTO watch_heartbeats (run_id, worker, last_seen_us) VALUES (?, ?, ?)");
  for (const auto& [worker, seen] : state.last_heartbeat) beat.bind(1, run_id).bind(2, worker).bind(3, seen).run();
  data::Statement hold(db, input, "INSERT INTO watch_holds (run_id, item_id, worker, since_us) VALUES (?, ?, ?, ?)");
  for (const auto& [range, h] : state.holds) hold.bind(1, run_id).bind(2, range).bind(3, h.worker).bind(4, h.since).run();
  transaction.commit();
}

}  // namespace millrace::cluster_adapter
