#include "api/problem.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "api/field_names.h"
#include "api/json_encode.h"

namespace gpuplan::api {

namespace {

const char* TypeFor(int status) {
  switch (status) {
    case 400: return "urn:gpuplan:problem:malformed-request";
    case 401: return "urn:gpuplan:problem:unauthenticated";
    case 403: return "urn:gpuplan:problem:forbidden";
    case 404: return "urn:gpuplan:problem:not-found";
    case 409: return "urn:gpuplan:problem:conflict";
    case 405: return "urn:gpuplan:problem:method-not-allowed";
    case 408: return "urn:gpuplan:problem:timeout";
    case 411: return "urn:gpuplan:problem:length-required";
    case 413: return "urn:gpuplan:problem:too-large";
    case 414: return "urn:gpuplan:problem:uri-too-long";
    case 415: return "urn:gpuplan:problem:unsupported-media-type";
    case 416: return "urn:gpuplan:problem:range-not-satisfiable";
    case 422: return "urn:gpuplan:problem:validation";
    case 429: return "urn:gpuplan:problem:too-many-requests";
    case 431: return "urn:gpuplan:problem:headers-too-large";
    case 501: return "urn:gpuplan:problem:not-implemented";
    case 503: return "urn:gpuplan:problem:unavailable";
    case 505: return "urn:gpuplan:problem:http-version-not-supported";
    default: return "about:blank";
  }
}

const char* Title(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 431: return "Request Header Fields Too Large";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return status >= 500 ? "Internal Server Error" : "Error";
  }
}

void Send(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  if (status == 503 || status == 429) res.set_header("Retry-After", "1");
  res.set_content(EncodeJson(body), "application/problem+json");
}

// The answer when even building the problem failed (bad_alloc): fixed text, no allocation
// beyond the response's own strings.
void SendFallback(httplib::Response& res, int status) noexcept {
  try {
    res.status = status;
    res.set_content(R"({"type":"about:blank","title":"Error","status":)" + std::to_string(status) + "}",
                    "application/problem+json");
  } catch (...) {
  }
}

}  // namespace

int HttpStatus(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return 422;
    case ErrorCode::kNotFound: return 404;
    case ErrorCode::kConflict: return 409;
    case ErrorCode::kUnavailable: return 503;
    case ErrorCode::kInternal: return 500;
  }
  return 500;
}

nlohmann::json ProblemJson(const Error& error, int status_override) {
  int status = status_override != 0 ? status_override : HttpStatus(error.code);
  // Internal details are for the log, not the client.
  std::string detail = status == 500 ? "internal error" : error.message;
  nlohmann::json body = {{"type", TypeFor(status)},
                         {"title", Title(status)},
                         {"status", status},
                         {"detail", detail}};
  if (!error.fields.empty()) {
    nlohmann::json errors = nlohmann::json::array();
    for (const FieldError& f : error.fields) {
      nlohmann::json item = {{"detail", f.detail}};
      std::string name = WireName(f);
      if (name.empty() || name.front() == '/') {
        item["pointer"] = std::move(name);  // "" points at the whole body
      } else if (name.rfind("line ", 0) == 0) {
        item["line"] = std::atoi(name.c_str() + 5);
      } else {
        item["parameter"] = std::move(name);
      }
      errors.push_back(std::move(item));
    }
    body["errors"] = std::move(errors);
  }
  return body;
}

void WriteError(const httplib::Request& req, httplib::Response& res, const Error& error,
                int status_override) noexcept {
  int status = status_override != 0 ? status_override : HttpStatus(error.code);
  try {
    nlohmann::json body = ProblemJson(error, status);
    // The occurrence: the path, and the request's id as the fragment (also on its own).
    std::string request_id = res.get_header_value("X-Request-Id");
    body["instance"] = request_id.empty() ? req.path : req.path + "#request-" + request_id;
    if (!request_id.empty()) body["request_id"] = request_id;
    Send(res, status, body);
  } catch (...) {
    SendFallback(res, status);
  }
}

void WriteProblem(const httplib::Request& req, httplib::Response& res, int status,
                  const std::string& detail) noexcept {
  try {
    WriteError(req, res, Error{ErrorCode::kInternal, detail, {}}, status);
  } catch (...) {
    SendFallback(res, status);
  }
}

}  // namespace gpuplan::api
