// Where `gpuplan catalog refresh` reads SkyPilot catalog files (docs/operations.md):
//  - a local directory laid out as upstream: <dir>/<cloud>/vms.csv (a copy of
//    skypilot-org/skypilot-catalog catalogs/v8), or as db/seed and shared data name them:
//    <dir>/<cloud>_vms_gpu.csv. A cloud found in both layouts is an error (which one?).
//  - an http(s) URL of a directory laid out as upstream: <url>/<cloud>/vms.csv is
//    downloaded for each cloud asked (cpp-httplib's client, TLS by OpenSSL, redirects
//    followed). Only this operator command downloads; the service never does.
// Files are read whole, at most kMaxCatalogFileBytes each. Not thread-safe to share; each
// call is independent.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/result.h"

namespace gpuplan::server {

// SkyPilot's hosted catalog, schema v8 (the format db/skypilot_parser.h reads).
inline constexpr const char* kSkypilotCatalogUrl =
    "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8";
inline constexpr size_t kMaxCatalogFileBytes = 256u << 20;  // larger than any upstream file

struct CatalogFile {
  std::string cloud;
  std::string origin;  // the path or URL it was read from
  std::string text;
};

struct CatalogFiles {
  std::vector<CatalogFile> files;   // sorted by cloud
  std::vector<std::string> missing;  // clouds asked that the source does not publish
};

// True for "http://..." and "https://...".
bool IsHttpUrl(const std::string& from);

// The catalogs in directory `dir`: of every cloud found when `clouds` is empty, else of
// those clouds only (a cloud not found goes to `missing`). Errors: kInvalidArgument naming
// "from" when `dir` is not a readable directory, a cloud has files in both layouts, or a
// file cannot be read or is over kMaxCatalogFileBytes.
Result<CatalogFiles> ReadCatalogDirectory(const std::string& dir,
                                          const std::vector<std::string>& clouds);

// Downloads <base_url>/<cloud>/vms.csv for each of `clouds` (HTTP 404 -> `missing`).
// Errors: kInvalidArgument naming "from" for a URL that is not http(s)://host[:port][/path];
// kUnavailable naming the URL when the connection fails, the answer is not 200 or 404, or
// the body is over kMaxCatalogFileBytes.
Result<CatalogFiles> DownloadCatalogs(const std::string& base_url,
                                      const std::vector<std::string>& clouds);

}  // namespace gpuplan::server
