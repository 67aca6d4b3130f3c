#include "cluster_adapter/http/live_page.h"

#include "cluster_adapter/http/live_page_files.h"

namespace millrace::cluster_adapter {

std::vector<PageFile> live_page_files() {
  std::vector<PageFile> files;
  for (const live_page_files_embedded::EmbeddedFile& file : live_page_files_embedded::kEmbeddedFiles) {
    files.push_back(PageFile{file.path == "/index.html" ? "/" : file.path, file.content_type, file.body});
  }
  return files;
}

}  // namespace millrace::cluster_adapter
