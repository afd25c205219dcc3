// Cross-origin requests (--cors-origin): which browser origins may call the API, and the
// answer to a preflight. No origin configured: no CORS headers at all (same-origin only).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <httplib.h>

namespace gpuplan::api {

class CorsPolicy {
 public:
  // `origins`: exact origins ("https://plan.example.com", compared without case; a trailing
  // slash is dropped) or "*" for any. Check them first with InvalidOrigin.
  explicit CorsPolicy(std::vector<std::string> origins);
  // Why `origin` is not "*" nor scheme://host[:port] (http or https); nullopt when it is.
  static std::optional<std::string> InvalidOrigin(const std::string& origin);

  bool enabled() const { return any_ || !origins_.empty(); }
  // Sets Access-Control-Allow-Origin (and Expose-Headers) when `req` comes from an allowed
  // origin, and Vary: Origin on every answer when the answer depends on the origin (a list
  // of origins, not "*"), so shared caches keep them apart. Returns whether it allowed.
  bool Apply(const httplib::Request& req, httplib::Response& res) const;
  // Answers OPTIONS for a path that answers to `methods` (non-empty): 204 with Allow, and
  // for an allowed origin's preflight (Apply already ran) the Access-Control-Allow-* headers.
  void AnswerOptions(const httplib::Request& req, httplib::Response& res,
                     const std::vector<std::string>& methods) const;

  // The request headers a browser may send, and the answer headers it may read.
  static constexpr const char* kAllowedHeaders =
      "Authorization, Content-Type, If-None-Match, X-Request-Id";
  static constexpr const char* kExposedHeaders =
      "ETag, Location, Retry-After, X-Request-Id";
  static constexpr int kMaxAgeSeconds = 600;

 private:
  std::vector<std::string> origins_;
  bool any_ = false;
};

}  // namespace gpuplan::api
