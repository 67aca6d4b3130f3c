// The command-line options naming a Redis work queue's keys, shared by `push` and `watch`
// (defaults: the names stellar's parallel catch-up chart uses, cluster_adapter/redis/redis_queue.h),
// and the help of their --redis address, worded so the redaction layer leaves it whole.
#pragma once

#include <CLI/CLI.hpp>

#include "cluster_adapter/redis/redis_queue.h"

namespace millrace::cli {

inline constexpr const char* kRedisAddressHelp =
    "the Redis server: HOST:PORT; behind a password PASSWORD@HOST:PORT or USER:PASSWORD@HOST:PORT "
    "(redis:// in front optional)";

void add_redis_names_options(CLI::App& cmd, cluster_adapter::RedisQueueNames& names);

}  // namespace millrace::cli
