// RFC 9457 problem details: the one table that maps error codes to HTTP statuses, and
// the renderer of application/problem+json bodies.
#pragma once

#include <string>

#include "model/result.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace gpuplan::api {

int HttpStatus(ErrorCode code);

// Writes `error` as problem+json with the status its code maps to. Field errors whose
// field starts with '/' are rendered as JSON pointers into the body; others as query
// parameter names ("parameter").
void WriteError(const httplib::Request& req, httplib::Response& res, const Error& error);

// Writes a problem with an explicit status (used for 404/405/413 and the like).
void WriteProblem(const httplib::Request& req, httplib::Response& res, int status,
                  const std::string& detail);

}  // namespace gpuplan::api
