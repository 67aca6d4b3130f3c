// How long work tells how far it got: a fit's cross-validation steps, a comparison's simulations,
// an import's bytes. The work calls a ProgressReport with what is done out of the total (in its
// own unit) and knows nothing of how it is shown; the CLI shows it on a terminal
// (cli/progress_display.h). Here, in the lowest module, so every module's long loops can report.
#pragma once

#include <cstdint>
#include <functional>

namespace millrace::data {

using ProgressReport = std::function<void(std::int64_t done, std::int64_t total)>;

}  // namespace millrace::data
