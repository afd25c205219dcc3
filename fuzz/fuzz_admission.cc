// The pre-routing stage (api/middleware.cc: NormalizeEmptyBody, AdmitRequest, the problem
// answer with the admission's status) on an httplib::Request built from the input:
//   line 1:   METHOD SP target   (target = path[?query]; the path is percent-decoded with
//             httplib::detail::decode_url and the query parsed with parse_query_text,
//             as cpp-httplib does)
//   lines 2+: Name: value        (headers, until an empty line; a trailing CR is dropped)
//   the rest: the body
// Also api::BearerToken on the Authorization header and api::BodyLimit.
#include <cstddef>
#include <cstdint>

#include "api/auth.h"
#include "api/request_admission.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

bool CarriesBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

httplib::Request Parse(const std::string& text) {
  httplib::Request req;
  size_t pos = 0;
  auto next_line = [&](std::string& line) {
    if (pos >= text.size()) return false;
    size_t nl = text.find('\n', pos);
    line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  std::string line;
  if (!next_line(line)) return req;
  size_t sp = line.find(' ');
  req.method = line.substr(0, sp);
  std::string target = sp == std::string::npos ? "" : line.substr(sp + 1);
  req.target = target;
  size_t q = target.find('?');
  req.path = httplib::detail::decode_url(target.substr(0, q), false);
  if (q != std::string::npos) httplib::detail::parse_query_text(target.substr(q + 1), req.params);
  while (next_line(line) && !line.empty()) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    size_t v = colon + 1;
    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
    req.headers.emplace(line.substr(0, colon), line.substr(v));
  }
  req.body = text.substr(std::min(pos, text.size()));
  return req;
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  httplib::Request req = Parse(Text(data, size));

  size_t limit = api::BodyLimit(req.method, req.path);
  Require(limit == (1u << 20) || limit == (8u << 20) || limit == (20u << 20),
          "BodyLimit gave a limit that is not one of 1, 8 or 20 MiB");

  bool had_length = req.has_header("Content-Length") || req.has_header("Transfer-Encoding");
  api::NormalizeEmptyBody(req);
  if (CarriesBody(req.method) && !had_length) {
    Require(req.get_header_value("Content-Length") == "0",
            "NormalizeEmptyBody did not add Content-Length: 0");
  }
  api::Admission a = api::AdmitRequest(req);
  Require(a.status == 0 || a.status == 400 || a.status == 411 || a.status == 413 || a.status == 415,
          "AdmitRequest answered an unexpected status", std::to_string(a.status));
  if (a.status != 0) {
    CheckErrorAnswer(req, a.error, a.status);
  } else {
    Require(a.body_bytes <= limit, "AdmitRequest admitted a body over the endpoint's limit");
    if (!CarriesBody(req.method)) Require(a.body_bytes == 0, "a GET-like request admitted with a body");
    // Admission is a function of the request: a second look says the same.
    api::Admission again = api::AdmitRequest(req);
    Require(again.status == 0 && again.body_bytes == a.body_bytes, "AdmitRequest is not stable");
  }
  if (auto token = api::BearerToken(req.get_header_value("Authorization"))) {
    Require(token->size() <= req.get_header_value("Authorization").size(),
            "BearerToken returned more than the header");
  }
  return 0;
}
