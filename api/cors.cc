#include "api/cors.h"

#include <algorithm>

namespace gpuplan::api {

CorsPolicy::CorsPolicy(std::vector<std::string> origins) {
  for (std::string& o : origins) {
    if (o == "*") {
      any_ = true;
    } else if (!o.empty()) {
      while (!o.empty() && o.back() == '/') o.pop_back();  // "https://a.example/" = the origin
      origins_.push_back(std::move(o));
    }
  }
}

std::string JoinMethods(const std::vector<std::string>& methods) {
  std::string out;
  for (const std::string& m : methods) out += (out.empty() ? "" : ", ") + m;
  return out;
}

bool CorsPolicy::Apply(const httplib::Request& req, httplib::Response& res) const {
  if (!enabled() || !req.has_header("Origin")) return false;
  std::string origin = req.get_header_value("Origin");
  bool allowed = any_ || std::find(origins_.begin(), origins_.end(), origin) != origins_.end();
  if (!allowed) return false;
  res.set_header("Access-Control-Allow-Origin", any_ ? "*" : origin);
  if (!any_) res.set_header("Vary", "Origin");
  res.set_header("Access-Control-Expose-Headers", kExposedHeaders);
  return true;
}

void CorsPolicy::AnswerOptions(const httplib::Request& req, httplib::Response& res,
                               const std::vector<std::string>& methods) const {
  res.status = 204;
  res.set_header("Allow", JoinMethods(methods));
  // The origin's headers were set with every request's (Apply); a preflight adds these.
  if (req.has_header("Access-Control-Request-Method") && res.has_header("Access-Control-Allow-Origin")) {
    res.set_header("Access-Control-Allow-Methods", JoinMethods(methods));
    res.set_header("Access-Control-Allow-Headers", kAllowedHeaders);
    res.set_header("Access-Control-Max-Age", std::to_string(kMaxAgeSeconds));
  }
}

}  // namespace gpuplan::api
