// The one JSON layer of the importers and of the other files millrace reads (ranges files, cost
// profiles). Documents are read through TextInput (so BOM, gzip, empty files and bounded
// excerpts are handled as for every importer), with every nlohmann error (syntax, a number out
// of range, invalid UTF-8 in a string, input cut short) turned into an Error naming file:line
// with the column and the problem, instead of a raw "[json.exception...]". nlohmann::json does
// not keep where a value was, so a list of records is read with parse_json_list, which hands
// over each element with the line it starts on (errors about a record name "file:line" like a
// line of a text file) and drops it, so that a list of any length is read in bounded memory.
// Every document, from a file or a string (a request body, a server's answer), is refused when
// nested deeper than kMaxJsonDepth, before the parser builds it: a value 100,000 levels deep
// would otherwise overflow the stack of whatever walks it recursively (nlohmann's dump()).
// Error messages quote a value only through json_excerpt (never a whole document).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/importers/text_input.h"

namespace millrace::data::importers {

// Arrays and objects nest at most this deep in any JSON millrace reads (Kubernetes objects nest
// about 15 levels; a ranges file 3).
inline constexpr int kMaxJsonDepth = 256;

// Follows the nesting of a JSON text byte by byte (outside strings), for the depth bound.
class JsonDepth {
 public:
  // Takes the next byte; returns false when it opens a level beyond kMaxJsonDepth.
  bool take(char c);

 private:
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

// "nested deeper than 256 levels", the problem of a document JsonDepth refused.
std::string too_deep();

// A value as an error message quotes it: an array or an object by its kind ("an array of 3"),
// a scalar as its JSON text through data::excerpt.
std::string json_excerpt(const nlohmann::json& value);

// Parses `text`, a whole document held in memory (a request body, a server's answer), refusing
// a document nested too deep and an object that gives a key twice: Error(what, problem).
nlohmann::json parse_json_text(std::string_view text, const std::string& what);

// Parses `text` (a server's answer) as one JSON document, nested at most kMaxJsonDepth deep;
// a discarded value (is_discarded()) when it is malformed or nested deeper.
nlohmann::json parse_json_or_discarded(std::string_view text);

// Where a document ends: at the end of the file, or at the end of the line whose rest
// TextInput::next_line_until left open (a log line quoting a server's JSON answer).
enum class JsonExtent { kRestOfFile, kRestOfLine };

// Parses the rest of `input` as one JSON document. `keep`, when given, is nlohmann's parser
// callback: returning false drops a value as soon as it is parsed.
nlohmann::json parse_json(TextInput& input, JsonExtent extent = JsonExtent::kRestOfFile,
                          const nlohmann::json::parser_callback_t& keep = nullptr);

// Gets one element of a list and "file:line" of the line it starts on.
using JsonElementFn = std::function<void(const nlohmann::json& element, const std::string& where)>;

// Parses the rest of `input` as a JSON list of records: the document itself when it is an array,
// or the array under `list_key` of a top-level object. Each element goes to `on_element` as soon
// as it is parsed and is then dropped; returns the document with that list left empty (for the
// caller's checks of its shape and its other fields).
nlohmann::json parse_json_list(TextInput& input, const std::string& list_key, const JsonElementFn& on_element,
                               JsonExtent extent = JsonExtent::kRestOfFile);

// True when the first non-blank character of the file at `path` opens a JSON array or object
// (reads only up to it). Throws Error as TextInput does (a file that cannot be read, "empty file").
bool looks_like_json(const std::string& path);

}  // namespace millrace::data::importers
