#include "api/request_admission.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "db/text.h"

namespace gpuplan::api {

namespace {

bool CarriesBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

Admission Refuse(int status, const std::string& field, const std::string& detail) {
  Admission a;
  a.status = status;
  a.error = Error::Invalid(field, detail);
  return a;
}

bool CaseInsensitiveEquals(const std::string& a, const char* b) {
  size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

}  // namespace

size_t BodyLimit(const std::string& method, const std::string& path) {
  if (method == "POST" && path == "/api/v1/catalog/import") return kImportBodyLimit;
  if (method == "POST" && (path == "/api/v1/estimates/training:batch" || path == "/api/v1/prices")) {
    return kLargeBodyLimit;
  }
  return kDefaultBodyLimit;
}

Admission AdmitRequest(const httplib::Request& req) {
  try {
    if (!db::IsValidUtf8(req.path) || db::HasControlCharacter(req.path)) {
      return Refuse(400, "path", "the request path, percent-decoded, must be UTF-8 text without control characters");
    }
    for (const auto& [name, value] : req.params) {
      std::string shown = db::IsValidUtf8(name) ? db::Printable(name, 60) : "(not UTF-8)";
      if (!db::IsValidUtf8(name) || db::HasControlCharacter(name)) {
        return Refuse(400, shown, "query parameter names must be UTF-8 text without control characters");
      }
      if (!db::IsValidUtf8(value) || db::HasControlCharacter(value)) {
        return Refuse(400, name, "query parameter '" + shown +
                                     "' must be UTF-8 text without control characters, percent-decoded");
      }
    }
    for (const auto& [name, value] : req.headers) {
      bool control = false;
      for (char ch : value) {
        auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 && c != '\t') || c == 0x7F) control = true;
      }
      if (!db::IsValidUtf8(value) || control) {
        return Refuse(400, "header " + db::Printable(name, 60),
                      "header " + db::Printable(name, 60) + " must be UTF-8 text without control characters");
      }
    }

    bool has_length = req.has_header("Content-Length");
    bool has_transfer = req.has_header("Transfer-Encoding");
    std::string length_text = req.get_header_value("Content-Length");
    if (!CarriesBody(req.method)) {
      if (has_transfer || (has_length && length_text != "0")) {
        return Refuse(400, "header Content-Length", req.method + " requests carry no body");
      }
      return {};
    }
    if (req.has_header("Content-Encoding") &&
        !CaseInsensitiveEquals(req.get_header_value("Content-Encoding"), "identity")) {
      return Refuse(415, "header Content-Encoding",
                    "compressed request bodies are not accepted: send the body without Content-Encoding");
    }
    if (has_transfer) {
      return Refuse(411, "header Transfer-Encoding",
                    "chunked request bodies are not accepted: send the body with a Content-Length");
    }
    if (!has_length) return {};  // no body (NormalizeEmptyBody)
    if (req.get_header_value_count("Content-Length") != 1 || length_text.empty() ||
        length_text.size() > 15 ||
        !std::all_of(length_text.begin(), length_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Refuse(400, "header Content-Length", "Content-Length must be one decimal number");
    }
    size_t length = std::stoull(length_text);
    size_t limit = BodyLimit(req.method, req.path);
    if (length > limit) {
      return Refuse(413, "header Content-Length",
                    "request body of " + length_text + " bytes is over this endpoint's limit of " +
                        std::to_string(limit) + " bytes");
    }
    Admission ok;
    ok.body_bytes = length;
    return ok;
  } catch (...) {  // bad_alloc while building a message
    Admission a;
    a.status = 400;
    a.error = Error{ErrorCode::kInvalidArgument, "malformed request", {}};
    return a;
  }
}

void NormalizeEmptyBody(httplib::Request& req) {
  if (CarriesBody(req.method) && !req.has_header("Content-Length") &&
      !req.has_header("Transfer-Encoding")) {
    req.headers.emplace("Content-Length", "0");
  }
}

}  // namespace gpuplan::api
