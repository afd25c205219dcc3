// Strict reading of URL query parameters. Every problem found is collected, so one 422
// answer names every bad parameter at once. Unknown and repeated parameters are errors.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace gpuplan::api {

// `value` as a URL path segment or query parameter value: RFC 3986 unreserved characters
// kept, every other byte %XX ("n1-standard-8+1xT4" -> "n1-standard-8%2B1xT4", so '+' is
// not read as a space).
std::string PercentEncode(std::string_view value);

class QueryParams {
 public:
  // `params` is the request's decoded query (httplib::Params); `allowed` the names the
  // route accepts.
  QueryParams(const std::multimap<std::string, std::string>& params,
              std::initializer_list<std::string_view> allowed);

  // The value, or `fallback` when absent. Present but empty reads as absent.
  std::string String(const std::string& name, const std::string& fallback = "");
  // An integer in [min, max]; nullopt when absent (or after recording an error).
  std::optional<long long> Integer(const std::string& name, long long min, long long max);
  // A finite number >= min; nullopt when absent (or after recording an error).
  std::optional<double> Number(const std::string& name, double min);
  // One of `choices`; `fallback` when absent.
  std::string Choice(const std::string& name, std::initializer_list<std::string_view> choices,
                     const std::string& fallback);

  // Records an error about `name` found by the caller.
  void Fail(const std::string& name, const std::string& detail);

  bool ok() const { return errors_.empty(); }
  // A kInvalidArgument error listing every problem.
  Error error() const;

 private:
  std::optional<std::string> Raw(const std::string& name);

  const std::multimap<std::string, std::string>& params_;
  std::vector<FieldError> errors_;
};

}  // namespace gpuplan::api
