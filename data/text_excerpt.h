// How an error message quotes a piece of its input: in single quotes, at most about 80
// characters (cut at a UTF-8 character boundary, with an ellipsis and the full length), so a
// 10 MB malformed line or field never ends up whole in a message, a log or a terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace millrace::data {

inline constexpr std::size_t kExcerptLimit = 80;

// `text` cut to at most `limit` bytes at a character boundary, with "…" when it was cut.
std::string shortened(std::string_view text, std::size_t limit);

// "'text'" or, when longer than `limit` bytes, "'first ~limit bytes…' (N bytes)".
std::string excerpt(std::string_view text, std::size_t limit = kExcerptLimit);

}  // namespace millrace::data
