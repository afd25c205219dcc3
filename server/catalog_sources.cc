#include "server/catalog_sources.h"

#include <httplib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace gpuplan::server {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFlatSuffix = "_vms_gpu.csv";

Result<std::string> ReadWhole(const fs::path& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) return Error::Invalid("from", "cannot read " + path.string() + ": " + ec.message());
  if (size > kMaxCatalogFileBytes) {
    return Error::Invalid("from", path.string() + " is " + std::to_string(size) +
                                      " bytes, over the limit of " +
                                      std::to_string(kMaxCatalogFileBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::Invalid("from", "cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// cloud -> its file in `dir`, in either layout.
Result<std::map<std::string, fs::path>> FindFiles(const fs::path& dir) {
  std::map<std::string, fs::path> found;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    std::string cloud;
    fs::path file;
    if (entry.is_directory() && fs::is_regular_file(entry.path() / "vms.csv")) {
      cloud = name;
      file = entry.path() / "vms.csv";
    } else if (entry.is_regular_file() && name.size() > std::string(kFlatSuffix).size() &&
               name.ends_with(kFlatSuffix)) {
      cloud = name.substr(0, name.size() - std::string(kFlatSuffix).size());
      file = entry.path();
    } else {
      continue;
    }
    if (!found.emplace(cloud, file).second) {
      return Error::Invalid("from", "cloud '" + cloud + "' has two files, " +
                                        found[cloud].string() + " and " + file.string() +
                                        ": keep one");
    }
  }
  if (ec) return Error::Invalid("from", "cannot list " + dir.string() + ": " + ec.message());
  return found;
}

struct UrlParts {
  std::string origin;  // scheme://host[:port]
  std::string path;    // "" or "/..." without a trailing slash
};

Result<UrlParts> SplitUrl(const std::string& url) {
  const size_t scheme_end = url.find("://");
  const size_t host_end = url.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (!IsHttpUrl(url) || scheme_end + 3 >= url.size() || host_end == scheme_end + 3) {
    return Error::Invalid("from", "'" + url + "' is not an http(s)://host[:port][/path] URL");
  }
  UrlParts parts{url.substr(0, host_end), host_end == std::string::npos ? "" : url.substr(host_end)};
  while (!parts.path.empty() && parts.path.back() == '/') parts.path.pop_back();
  return parts;
}

}  // namespace

bool IsHttpUrl(const std::string& from) {
  return from.starts_with("http://") || from.starts_with("https://");
}

Result<CatalogFiles> ReadCatalogDirectory(const std::string& dir,
                                          const std::vector<std::string>& clouds) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error::Invalid("from", "'" + dir + "' is not a directory (nor an http:// or https:// URL)");
  }
  auto found = FindFiles(dir);
  if (!found.ok()) return found.error();
  CatalogFiles out;
  const std::set<std::string> wanted(clouds.begin(), clouds.end());
  for (const auto& [cloud, path] : *found) {
    if (!wanted.empty() && !wanted.count(cloud)) continue;
    auto text = ReadWhole(path);
    if (!text.ok()) return text.error();
    out.files.push_back({cloud, path.string(), std::move(text).value()});
  }
  for (const std::string& cloud : wanted) {
    if (!found->count(cloud)) out.missing.push_back(cloud);
  }
  return out;
}

Result<CatalogFiles> DownloadCatalogs(const std::string& base_url,
                                      const std::vector<std::string>& clouds) {
  auto url = SplitUrl(base_url);
  if (!url.ok()) return url.error();
  httplib::Client client(url->origin);
  client.set_follow_location(true);
  client.set_connection_timeout(15, 0);
  client.set_read_timeout(60, 0);
  CatalogFiles out;
  std::vector<std::string> sorted = clouds;
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& cloud : sorted) {
    const std::string path = url->path + "/" + cloud + "/vms.csv";
    const std::string where = url->origin + path;
    std::string body;
    bool too_large = false;
    auto res = client.Get(path, [&](const char* data, size_t length) {
      too_large = body.size() + length > kMaxCatalogFileBytes;
      if (!too_large) body.append(data, length);
      return !too_large;
    });
    if (too_large) {
      return Error::Unavailable(where + " is over the limit of " +
                                std::to_string(kMaxCatalogFileBytes) + " bytes");
    }
    if (!res) return Error::Unavailable("cannot download " + where + ": " + httplib::to_string(res.error()));
    if (res->status == 404) {
      out.missing.push_back(cloud);
      continue;
    }
    if (res->status != 200) {
      return Error::Unavailable("cannot download " + where + ": HTTP " + std::to_string(res->status));
    }
    out.files.push_back({cloud, where, std::move(body)});
  }
  return out;
}

}  // namespace gpuplan::server
