// How an error message quotes a piece of its input: in single quotes, at most about 80
// characters (cut at a UTF-8 character boundary, with an ellipsis and the full length), so a
// 10 MB malformed line or field never ends up whole in a message, a log or a terminal. And the
// one check of UTF-8 (RFC 3629), with its repair for text taken from outside as it is (a worker's
// name in a Redis queue), so what millrace stores and serves as JSON is always valid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace millrace::data {

inline constexpr std::size_t kExcerptLimit = 80;

// `text` cut to at most `limit` bytes at a character boundary, with "…" when it was cut.
std::string shortened(std::string_view text, std::size_t limit);

// The offset of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF), or npos when `text` is valid.
std::size_t invalid_utf8_at(std::string_view text);

// `text` with every byte that breaks UTF-8 replaced by U+FFFD (one per byte); valid text unchanged.
std::string valid_utf8(std::string_view text);

// What breaks UTF-8 in `text`, "byte 0xFF at column 2", or "" when it is valid.
std::string utf8_problem(std::string_view text);

// Throws Error(input, "<what> 'n\uFFFD' is not UTF-8 (byte 0xFF at column 2) ...") unless `text`
// is UTF-8: for names entering the store, which every JSON that carries them must be able to hold.
void require_utf8(std::string_view text, const std::string& what, const std::string& input);

// "'text'" or, when longer than `limit` bytes, "'first ~limit bytes…' (N bytes)".
std::string excerpt(std::string_view text, std::size_t limit = kExcerptLimit);

}  // namespace millrace::data
