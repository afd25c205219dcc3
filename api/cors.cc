#include "api/cors.h"

#include <algorithm>
#include <regex>

#include "api/route_table.h"
#include "db/text.h"

namespace gpuplan::api {

namespace {

// "HTTPS://Plan.Example.com/" -> "https://plan.example.com": origins compare without case.
std::string Normalized(std::string origin) {
  if (!origin.empty() && origin.back() == '/') origin.pop_back();
  return db::AsciiLower(origin);
}

}  // namespace

std::optional<std::string> CorsPolicy::InvalidOrigin(const std::string& origin) {
  static const std::regex kOrigin(R"(https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?)");
  if (origin.empty() || origin == "*" || std::regex_match(Normalized(origin), kOrigin)) {
    return std::nullopt;  // "" is no origin at all (what --print-config writes for none)
  }
  return "'" + db::Printable(origin, 100) +
         "' is not an origin: give scheme://host[:port] (http or https, no path), or *";
}

CorsPolicy::CorsPolicy(std::vector<std::string> origins) {
  for (const std::string& o : origins) {
    if (o == "*") {
      any_ = true;
    } else if (!o.empty()) {
      origins_.push_back(Normalized(o));
    }
  }
}

bool CorsPolicy::Apply(const httplib::Request& req, httplib::Response& res) const {
  if (!enabled()) return false;
  if (!any_) res.set_header("Vary", "Origin");
  if (!req.has_header("Origin")) return false;
  std::string origin = req.get_header_value("Origin");
  bool allowed =
      any_ || std::find(origins_.begin(), origins_.end(), Normalized(origin)) != origins_.end();
  if (!allowed) return false;
  res.set_header("Access-Control-Allow-Origin", any_ ? "*" : origin);
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
