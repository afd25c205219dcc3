// RFC 9457 problem details: the one table that maps error codes to HTTP statuses, and
// the renderer of application/problem+json bodies.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/result.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace gpuplan::api {

int HttpStatus(ErrorCode code);

// The problem+json object of `error` (type, title, status, detail, errors[]) without the
// request's instance and id: what WriteError sends, and what a batch item carries.
// `status`, when not 0, replaces the status the code maps to.
nlohmann::json ProblemJson(const Error& error, int status = 0);

// Writes `error` as problem+json with the status its code maps to. Fields are named by
// their wire name (api/field_names.h): one that starts with '/' (or is empty) is rendered
// as a JSON pointer into the body, "line N" as a CSV line, others as query parameter names
// ("parameter"). 503 and 429 answers carry Retry-After. Never throws:
// strings that are not valid UTF-8 are encoded with U+FFFD, and if the body cannot be
// built at all a fixed body with the status is sent.
// `status`, when not 0, replaces the status the code maps to (400 for a malformed path).
void WriteError(const httplib::Request& req, httplib::Response& res, const Error& error,
                int status = 0) noexcept;

// Writes a problem with an explicit status (used for 404/405/413 and the like). Never throws.
void WriteProblem(const httplib::Request& req, httplib::Response& res, int status,
                  const std::string& detail) noexcept;

}  // namespace gpuplan::api
