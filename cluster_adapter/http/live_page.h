// The live page of a run, served by the status server at / (and its stylesheet and script):
// plain HTML, CSS and a small script from live_page/, compiled into the binary at build time
// (embed_files.cmake), so the page needs neither the source tree nor any network beyond the
// status server itself. The script refreshes the page from GET /status.
#pragma once

#include <string_view>
#include <vector>

namespace millrace::cluster_adapter {

struct PageFile {
  std::string_view path;          // as requested: "/", "/live_page.css", ...
  std::string_view content_type;
  std::string_view body;
};

// The page's files; "/" is the page itself.
std::vector<PageFile> live_page_files();

// The headers every answer of the page carries: its script and styles come from the status
// server alone (no inline script runs, whatever a run's text holds), nothing is framed or sniffed.
inline constexpr std::string_view kLivePageSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace millrace::cluster_adapter
