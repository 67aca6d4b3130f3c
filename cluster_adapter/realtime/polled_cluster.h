// A real cluster as the real-run event loop sees it: the scheduler core is single-threaded and
// holds no threads, so a real cluster (child processes, a Kubernetes API watch) gathers what
// happened on its own and hands it to the listener only inside poll(), on the loop's thread.
#pragma once

#include "data/time.h"
#include "scheduler/cluster.h"

namespace millrace::cluster_adapter {

class PolledCluster : public scheduler::Cluster {
 public:
  // Delivers every pending event to the listener on the calling thread; when none is pending,
  // waits up to `max_wait` for one to arrive (0: do not wait).
  virtual void poll(data::Micros max_wait) = 0;
};

}  // namespace millrace::cluster_adapter
