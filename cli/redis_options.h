// The command-line options naming a Redis work queue's keys, shared by `push` and `watch`
// (defaults: the names stellar's parallel catch-up chart uses, cluster_adapter/redis/redis_queue.h).
#pragma once

#include <CLI/CLI.hpp>

#include "cluster_adapter/redis/redis_queue.h"

namespace millrace::cli {

void add_redis_names_options(CLI::App& cmd, cluster_adapter::RedisQueueNames& names);

}  // namespace millrace::cli
