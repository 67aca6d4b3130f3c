// The message of the data::Error a call throws, for tests asserting what a user reads when
// millrace refuses an input; "" when it throws none.
#pragma once

#include <functional>
#include <string>

#include "data/error.h"

namespace millrace::test_support {

inline std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const data::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace millrace::test_support
