#include "cli/current_step.h"

#include <exception>
#include <utility>

namespace millrace::cli {

namespace {

thread_local std::string current;

}  // namespace

CurrentStep::CurrentStep(std::string what) : previous_(current), exceptions_(std::uncaught_exceptions()) {
  current = std::move(what);
}

CurrentStep::~CurrentStep() {
  if (std::uncaught_exceptions() == exceptions_) current = std::move(previous_);
}

const std::string& CurrentStep::now() { return current; }

}  // namespace millrace::cli
