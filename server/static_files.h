// The dashboard's files, read into memory once at start-up from the static directory.
// Only regular files are taken: symbolic links (to files or folders) are refused, so no
// request can reach outside the directory, and nothing on disk is touched per request.
// Files over 16 MiB and names that are not plain ASCII are skipped (and logged).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace gpuplan::server {

class StaticFiles {
 public:
  struct File {
    std::string content;
    std::string mime_type;
  };

  // Loads `dir` (recursively). A missing directory gives an empty set.
  static StaticFiles Load(const std::string& dir);

  // The file for a request path: "/", "/x/" and (when there is no file x) "/x" mean their
  // index.html. nullptr if none.
  const File* Find(const std::string& path) const;
  size_t size() const { return files_.size(); }

 private:
  std::map<std::string, File> files_;  // "/app.js" -> file
};

}  // namespace gpuplan::server
