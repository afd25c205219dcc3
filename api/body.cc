#include "api/body.h"

#include "api/json_limits.h"
#include "api/problem.h"

namespace gpuplan::api {

std::optional<nlohmann::json> ReadJsonBody(const httplib::Request& req, httplib::Response& res,
                                           size_t limit) {
  if (req.body.size() > limit) {
    WriteProblem(req, res, 413,
                 "request body of " + std::to_string(req.body.size()) +
                     " bytes is over this endpoint's limit of " + std::to_string(limit));
    return std::nullopt;
  }
  std::string type = req.get_header_value("Content-Type");
  if (!type.empty() && type.find("json") == std::string::npos) {
    WriteProblem(req, res, 415, "Content-Type must be application/json, got '" + type + "'");
    return std::nullopt;
  }
  ParsedJson parsed = ParseBoundedJson(req.body, LimitsForBody(limit));
  if (!parsed.value) {
    WriteProblem(req, res, 400, parsed.error);
    return std::nullopt;
  }
  nlohmann::json& body = *parsed.value;
  if (!body.is_object()) {
    WriteProblem(req, res, 400, "request body must be a JSON object");
    return std::nullopt;
  }
  return std::move(body);
}

}  // namespace gpuplan::api
