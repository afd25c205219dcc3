#include "api/etag.h"

namespace gpuplan::api {

bool IsCatalogRead(const httplib::Request& req) {
  if (req.method != "GET" && req.method != "HEAD") return false;
  static constexpr std::string_view kPrefixes[] = {
      "/api/v1/gpus", "/api/v1/clouds", "/api/v1/regions", "/api/v1/instances",
      "/api/v1/fx-rates", "/api/v1/prices/spot-history", "/api/v1/workloads"};
  std::string_view path = req.path;
  for (std::string_view p : kPrefixes) {
    if (path.substr(0, p.size()) == p && (path.size() == p.size() || path[p.size()] == '/')) {
      return true;
    }
  }
  return false;
}

std::string CatalogEtag(std::string_view version, long long generation) {
  return "\"v" + std::string(version) + "-g" + std::to_string(generation) + "\"";
}

bool IfNoneMatchHolds(const std::string& if_none_match, const std::string& etag) {
  size_t i = 0;
  while (i < if_none_match.size()) {
    while (i < if_none_match.size() && (if_none_match[i] == ' ' || if_none_match[i] == ',')) ++i;
    size_t end = if_none_match.find(',', i);
    if (end == std::string::npos) end = if_none_match.size();
    std::string tag = if_none_match.substr(i, end - i);
    while (!tag.empty() && tag.back() == ' ') tag.pop_back();
    if (tag == "*") return true;
    if (tag.rfind("W/", 0) == 0) tag = tag.substr(2);  // weak comparison (RFC 9110 13.1.2)
    if (tag == etag) return true;
    i = end;
  }
  return false;
}

}  // namespace gpuplan::api
