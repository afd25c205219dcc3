#include "server/static_files.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuplan::server {

namespace {

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

std::string MimeType(const std::string& extension) {
  static const std::map<std::string, std::string> kTypes = {
      {".html", "text/html; charset=utf-8"},  {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},          {".svg", "image/svg+xml"},
      {".png", "image/png"},                  {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},  {".map", "application/json"},
      {".woff2", "font/woff2"},               {".yaml", "application/yaml"}};
  auto it = kTypes.find(extension);
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

bool PlainName(const std::string& name) {
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F || c == '%' || c == '?' || c == '#' || c == '\\') return false;
  }
  return !name.empty();
}

}  // namespace

StaticFiles StaticFiles::Load(const std::string& dir) {
  namespace fs = std::filesystem;
  StaticFiles out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || fs::is_symlink(dir, ec)) return out;
  // recursive_directory_iterator does not follow directory symlinks by default.
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    if (entry.is_symlink(ec)) {
      spdlog::warn("static: {} is a symbolic link; not served", entry.path().string());
      continue;
    }
    if (!entry.is_regular_file(ec)) continue;
    std::string relative = fs::relative(entry.path(), dir, ec).generic_string();
    if (ec || !PlainName(relative) || entry.file_size(ec) > kMaxFileBytes) {
      spdlog::warn("static: {} skipped (name or size)", entry.path().string());
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    out.files_["/" + relative] = File{content.str(), MimeType(entry.path().extension().string())};
  }
  return out;
}

const StaticFiles::File* StaticFiles::Find(const std::string& path) const {
  bool folder = path.empty() || path.back() == '/';
  auto it = files_.find(folder ? path + "index.html" : path);
  if (it == files_.end() && !folder) it = files_.find(path + "/index.html");  // "/docs"
  return it == files_.end() ? nullptr : &it->second;
}

}  // namespace gpuplan::server
