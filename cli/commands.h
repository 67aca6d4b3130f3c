// The `millrace` subcommands: each module of the CLI adds one subcommand to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace millrace::cli {

}  // namespace millrace::cli
