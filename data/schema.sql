-- The trace store's schema, as the list of migrations applied in order at open.
-- Each section starting with a "-- migration N" line is applied once, in order, and the
-- store's PRAGMA user_version is the number of sections applied. Never edit a released
-- section: append a new one.

-- migration 1: runs, planned items with dependencies, attempts, cost profiles
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL,
  source      TEXT    NOT NULL,
  units       TEXT    NOT NULL,
  partitioner TEXT    NOT NULL,
  policy      TEXT    NOT NULL,
  parameters  TEXT    NOT NULL,
  started_us  INTEGER NOT NULL,
  ended_us    INTEGER NOT NULL
);

CREATE TABLE items (
  run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  position     INTEGER NOT NULL,  -- plan order
  id           TEXT    NOT NULL,
  range_first  INTEGER,           -- NULL for payload-only items
  range_count  INTEGER,
  type         TEXT    NOT NULL,
  payload      TEXT    NOT NULL,
  priority     INTEGER NOT NULL,
  submit_at_us INTEGER NOT NULL,
  predicted_us INTEGER NOT NULL,
  PRIMARY KEY (run_id, id),
  UNIQUE (run_id, position),
  CHECK ((range_first IS NULL) = (range_count IS NULL))
) WITHOUT ROWID;

CREATE TABLE item_deps (
  run_id     INTEGER NOT NULL,
  item_id    TEXT    NOT NULL,
  position   INTEGER NOT NULL,
  depends_on TEXT    NOT NULL,
  PRIMARY KEY (run_id, item_id, position),
  FOREIGN KEY (run_id, item_id) REFERENCES items (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE attempts (
  run_id         INTEGER NOT NULL,
  item_id        TEXT    NOT NULL,
  number         INTEGER NOT NULL,
  worker         TEXT    NOT NULL,
  start_us       INTEGER NOT NULL,
  end_us         INTEGER NOT NULL,
  outcome        TEXT    NOT NULL,
  exit_code      INTEGER NOT NULL,
  failure_reason TEXT    NOT NULL,
  work_time_us   INTEGER,           -- NULL when not recorded
  PRIMARY KEY (run_id, item_id, number),
  FOREIGN KEY (run_id, item_id) REFERENCES items (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX attempts_by_start ON attempts (run_id, start_us, item_id, number);

CREATE TABLE profiles (
  name   TEXT PRIMARY KEY,
  units  TEXT NOT NULL,
  source TEXT NOT NULL
);

CREATE TABLE profile_bins (
  profile         TEXT    NOT NULL REFERENCES profiles (name) ON DELETE CASCADE,
  position        INTEGER NOT NULL,
  first           INTEGER NOT NULL,
  count           INTEGER NOT NULL,
  micros_per_unit REAL    NOT NULL,
  PRIMARY KEY (profile, position)
) WITHOUT ROWID;

-- migration 2: comparisons (`millrace compare` and `millrace plan`) for the notebooks.
-- One comparisons row per command run; one comparison_rows row per simulated combination
-- (partitioner x workers x queue order), summarised over its replicas. Times in microseconds.
-- partitioner 'recorded' is the recorded run replayed with its recorded durations.
-- deadline_met is the fraction of replicas finishing by the plan's deadline (NULL for compare).
CREATE TABLE comparisons (
  id          INTEGER PRIMARY KEY,
  kind        TEXT    NOT NULL,  -- 'compare' or 'plan'
  created_us  INTEGER NOT NULL,  -- wall-clock time of the command, micros since the epoch
  model       TEXT    NOT NULL,  -- cost model file
  span_first  INTEGER NOT NULL,
  span_count  INTEGER NOT NULL,
  parameters  TEXT    NOT NULL   -- JSON of the command's settings
);

CREATE TABLE comparison_rows (
  comparison_id        INTEGER NOT NULL REFERENCES comparisons (id) ON DELETE CASCADE,
  position             INTEGER NOT NULL,
  partitioner          TEXT    NOT NULL,
  workers              INTEGER NOT NULL,
  queue_order          TEXT    NOT NULL,
  ranges               INTEGER NOT NULL,
  replicas             INTEGER NOT NULL,
  longest_range_us     INTEGER NOT NULL,
  lower_bound_us       INTEGER NOT NULL,
  makespan_mean_us     INTEGER NOT NULL,
  makespan_min_us      INTEGER NOT NULL,
  makespan_max_us      INTEGER NOT NULL,
  makespan_stddev_us   INTEGER NOT NULL,
  ratio_to_lower_bound REAL    NOT NULL,
  utilisation          REAL    NOT NULL,
  node_hours           REAL    NOT NULL,
  tail_below_tenth_us  INTEGER NOT NULL,
  failed_attempts_mean REAL    NOT NULL,
  failed_runs          INTEGER NOT NULL,
  deadline_met         REAL,
  PRIMARY KEY (comparison_id, position)
) WITHOUT ROWID;

-- migration 3: what `millrace watch` knows of a live Redis work queue beyond the queue itself,
-- kept so a restarted watch goes on where it stopped: when it last saw each worker's heartbeat
-- key (a worker seen heartbeating whose key is gone has stopped), and since when each range has
-- been in progress and with which owner (the start of the failed attempt recorded when the range
-- is re-queued). Times in microseconds since the Unix epoch.
CREATE TABLE watch_heartbeats (
  run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  worker       TEXT    NOT NULL,
  last_seen_us INTEGER NOT NULL,
  PRIMARY KEY (run_id, worker)
) WITHOUT ROWID;

CREATE TABLE watch_holds (
  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  item_id  TEXT    NOT NULL,  -- the END/COUNT in the in-progress list
  worker   TEXT    NOT NULL,  -- its owner in job_owners ('' when none was named)
  since_us INTEGER NOT NULL,  -- when the watch first saw it in progress with that owner
  PRIMARY KEY (run_id, item_id)
) WITHOUT ROWID;

-- migration 4: what a comparison row adds beside its own bound and its mean, one row per
-- comparison_rows row. contiguous_bound_us is the best any contiguous partition of the span could
-- reach on that many workers + start-up (partitioners/contiguous_bound.h; 0 without a model);
-- makespan_p10/p50/p90_us are the nearest-rank quantiles of the makespan over the replicas, whose
-- range durations are drawn from the cost model's noise. Rows stored before have none.
CREATE TABLE IF NOT EXISTS comparison_spread (
  comparison_id        INTEGER NOT NULL,
  position             INTEGER NOT NULL,
  contiguous_bound_us  INTEGER NOT NULL,
  makespan_p10_us      INTEGER NOT NULL,
  makespan_p50_us      INTEGER NOT NULL,
  makespan_p90_us      INTEGER NOT NULL,
  PRIMARY KEY (comparison_id, position),
  FOREIGN KEY (comparison_id, position) REFERENCES comparison_rows (comparison_id, position) ON DELETE CASCADE
) WITHOUT ROWID;

-- migration 5: who runs a real run, and what its in-flight attempts started. One run_sessions
-- row per millrace process that ran the run (a new run, then each --resume): its identity (host,
-- pid, start time in clock ticks since boot, boot id), where it holds its attempts' processes
-- (the cgroup directory of the session, '' when none, and the tag every attempt's environment
-- carries as MILLRACE_TREE=<tag>.<attempt>), and its heartbeat. The session with state 'live' whose
-- owner still runs owns the run (its lease); 'ended' when it exited with nothing left running,
-- 'swept' once a later session ended what it left. attempt_trees holds the process tree of each
-- attempt that started and has no attempts row yet. Times in microseconds since the Unix epoch.
CREATE TABLE run_sessions (
  run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  session      INTEGER NOT NULL,  -- 1, 2, ... in the order they claimed the run
  host         TEXT    NOT NULL,
  pid          INTEGER NOT NULL,
  pid_start    INTEGER NOT NULL,
  boot_id      TEXT    NOT NULL,
  tree_root    TEXT    NOT NULL,
  tree_tag     TEXT    NOT NULL,
  started_us   INTEGER NOT NULL,
  heartbeat_us INTEGER NOT NULL,
  state        TEXT    NOT NULL CHECK (state IN ('live', 'ended', 'swept')),
  PRIMARY KEY (run_id, session)
) WITHOUT ROWID;

CREATE TABLE attempt_trees (
  run_id     INTEGER NOT NULL,
  item_id    TEXT    NOT NULL,
  number     INTEGER NOT NULL,
  session    INTEGER NOT NULL,
  worker     TEXT    NOT NULL,
  pid        INTEGER NOT NULL,  -- the attempt's leader
  pgid       INTEGER NOT NULL,
  pid_start  INTEGER NOT NULL,
  boot_id    TEXT    NOT NULL,
  tag        TEXT    NOT NULL,
  cgroup     TEXT    NOT NULL,
  started_us INTEGER NOT NULL,
  PRIMARY KEY (run_id, item_id, number),
  FOREIGN KEY (run_id, item_id) REFERENCES items (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- migration 6: imports in progress. `millrace import` writes a run's items and attempts into
-- the real tables under a run that stays hidden (runs(), run(), find_run() skip every run named
-- here) in short batches, so readers and a live run on the same store never wait for a whole
-- import; publishing is one short transaction that deletes the registration. An import that
-- fails, or is killed, publishes nothing; its rows are removed by itself or, once its process is
-- gone, by the next import. staged_attempt_sources keeps where each attempt was read
-- ("file:line", in the order read) to name both lines of a duplicated row and to lay attempts
-- back to back; it is cleared after publishing.
CREATE TABLE staged_imports (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id     INTEGER NOT NULL UNIQUE REFERENCES runs (id) ON DELETE CASCADE,
  host       TEXT    NOT NULL,
  pid        INTEGER NOT NULL,
  started_us INTEGER NOT NULL   -- wall clock, micros since the epoch
);

CREATE TABLE staged_attempt_sources (
  run_id  INTEGER NOT NULL,
  item_id TEXT    NOT NULL,
  number  INTEGER NOT NULL,
  source  TEXT    NOT NULL,
  UNIQUE (run_id, item_id, number)
);

-- migration 7: where each attempt in flight leaves its exit status. A local attempt runs under a
-- recorder (/bin/sh) that writes the command's exit code and a newline to this file when the
-- command ends, the file's modification time being the end, so a later session can record the
-- real outcome of an attempt that a killed millrace left running ('' when there is none).
ALTER TABLE attempt_trees ADD COLUMN status_file TEXT NOT NULL DEFAULT '';

-- migration 8: resource requests of items (`request.NAME` columns, SWF processor counts), in
-- milli-units of a Kubernetes quantity (data/quantity.h): a pod asks for them on a node pool.
CREATE TABLE item_requests (
  run_id   INTEGER NOT NULL,
  item_id  TEXT    NOT NULL,
  resource TEXT    NOT NULL,
  milli    INTEGER NOT NULL CHECK (milli >= 0),
  PRIMARY KEY (run_id, item_id, resource),
  FOREIGN KEY (run_id, item_id) REFERENCES items (run_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- migration 9: stored run parameters in one unit, integer microseconds (the core's unit). A real
-- run on Kubernetes kept its duration settings for --resume in seconds (*_s keys of
-- runs.parameters); they become *_us, rounded to the microsecond, like every other duration
-- stored (backoff_us, timeout_us, deadline_us, ...).
UPDATE runs SET parameters = json_remove(json_set(parameters, '$.active_deadline_us',
    CAST(round(json_extract(parameters, '$.active_deadline_s') * 1000000) AS INTEGER)), '$.active_deadline_s')
  WHERE json_valid(parameters) AND json_type(parameters, '$.active_deadline_s') IN ('integer', 'real');
UPDATE runs SET parameters = json_remove(json_set(parameters, '$.api_patience_us',
    CAST(round(json_extract(parameters, '$.api_patience_s') * 1000000) AS INTEGER)), '$.api_patience_s')
  WHERE json_valid(parameters) AND json_type(parameters, '$.api_patience_s') IN ('integer', 'real');
UPDATE runs SET parameters = json_remove(json_set(parameters, '$.unschedulable_after_us',
    CAST(round(json_extract(parameters, '$.unschedulable_after_s') * 1000000) AS INTEGER)), '$.unschedulable_after_s')
  WHERE json_valid(parameters) AND json_type(parameters, '$.unschedulable_after_s') IN ('integer', 'real');
UPDATE runs SET parameters = json_remove(json_set(parameters, '$.lease_duration_us',
    CAST(round(json_extract(parameters, '$.lease_duration_s') * 1000000) AS INTEGER)), '$.lease_duration_s')
  WHERE json_valid(parameters) AND json_type(parameters, '$.lease_duration_s') IN ('integer', 'real');
UPDATE runs SET parameters = json_remove(json_set(parameters, '$.heartbeat_us',
    CAST(round(json_extract(parameters, '$.heartbeat_s') * 1000000) AS INTEGER)), '$.heartbeat_s')
  WHERE json_valid(parameters) AND json_type(parameters, '$.heartbeat_s') IN ('integer', 'real');

-- migration 10: the experiment file a comparison was run from (`millrace compare -f FILE`, `plan
-- -f FILE`): its text byte for byte, its SHA-256 (hex), and the options given on the command line
-- beside it (JSON array of arguments), so `millrace show --experiment ID` prints it back and the
-- comparison can be run again exactly. Comparisons run from the command line alone have no row.
CREATE TABLE comparison_experiments (
  comparison_id INTEGER PRIMARY KEY REFERENCES comparisons (id) ON DELETE CASCADE,
  file          TEXT    NOT NULL,  -- as named on the command line
  text          TEXT    NOT NULL,
  sha256        TEXT    NOT NULL,
  overrides     TEXT    NOT NULL   -- JSON array, e.g. ["--replicas", "5"]
);

-- migration 11: the phases of each attempt before its work started (data/records.h Attempt):
-- when it was submitted to the cluster and when it was placed on a node or slot, and the node's
-- name. Attempts recorded before are kept with the phases unknown (NULL, '').
ALTER TABLE attempts ADD COLUMN submitted_us INTEGER;
ALTER TABLE attempts ADD COLUMN placed_us INTEGER;
ALTER TABLE attempts ADD COLUMN node TEXT NOT NULL DEFAULT '';

-- migration 12: node arrivals (data/records.h NodeArrival): the nodes that joined a run's cluster
-- while it ran, with their pool and when each was created and became ready (NULL when not
-- recorded); and when the scheduler first said an attempt's pod fits on no node (NULL when not
-- recorded). runs.node_arrivals_unrecorded says why a run that watched for node arrivals could
-- not record them ('' when it did, or did not watch). Stores from before keep their runs and
-- attempts with both unknown.
CREATE TABLE node_arrivals (
  run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  node       TEXT    NOT NULL,
  pool       TEXT    NOT NULL,
  created_us INTEGER,
  ready_us   INTEGER,
  PRIMARY KEY (run_id, node)
) WITHOUT ROWID;
ALTER TABLE attempts ADD COLUMN unschedulable_us INTEGER;
ALTER TABLE runs ADD COLUMN node_arrivals_unrecorded TEXT NOT NULL DEFAULT '';

-- migration 13: node departures (data/records.h NodeArrival): when a watched node left the run's
-- cluster (NULL when it did not, or was not seen to), its capacity type from its labels ('spot',
-- 'on-demand', '' when they do not say), and whether it was there before the run (1: a spot
-- node watched for its departure, not an arrival). Stores from before keep their arrivals with
-- no departure, capacity type unknown.
ALTER TABLE node_arrivals ADD COLUMN departed_us INTEGER;
ALTER TABLE node_arrivals ADD COLUMN capacity_type TEXT NOT NULL DEFAULT '';
ALTER TABLE node_arrivals ADD COLUMN present_at_start INTEGER NOT NULL DEFAULT 0;

-- migration 14: what each row of a stored comparison costs when its cluster was priced
-- (sim/run_cost.h CostBand): the mean and p10/p50/p90 over its replicas, and each pool's mean (in
-- pool order), in exact integer millionths of the currency (data/money.h). Rows stored before, or
-- not priced, have none.
CREATE TABLE comparison_costs (
  comparison_id   INTEGER NOT NULL REFERENCES comparisons (id) ON DELETE CASCADE,
  position        INTEGER NOT NULL,
  currency        TEXT    NOT NULL,
  mean_millionths INTEGER NOT NULL,
  p10_millionths  INTEGER NOT NULL,
  p50_millionths  INTEGER NOT NULL,
  p90_millionths  INTEGER NOT NULL,
  PRIMARY KEY (comparison_id, position)
) WITHOUT ROWID;
CREATE TABLE comparison_pool_costs (
  comparison_id   INTEGER NOT NULL REFERENCES comparisons (id) ON DELETE CASCADE,
  position        INTEGER NOT NULL,
  pool_index      INTEGER NOT NULL,
  pool            TEXT    NOT NULL,
  mean_millionths INTEGER NOT NULL,
  PRIMARY KEY (comparison_id, position, pool_index)
) WITHOUT ROWID;
