// What the pre-routing stage checks before any handler runs or any body byte is read:
//  - the decoded path, query parameter names and values, and header values are
//    well-formed UTF-8 (and the path and query have no control characters): else 400
//    naming the path, parameter or header;
//  - request body framing: no Content-Encoding other than identity (415), no
//    Transfer-Encoding (411: send Content-Length), a Content-Length that is one decimal
//    number (400) and within the endpoint's limit (413), no body on GET/HEAD/OPTIONS
//    (400). A POST/PUT/PATCH/DELETE without Content-Length has an empty body (RFC 9112
//    6.3), which NormalizeEmptyBody makes explicit so the body reader does not wait for
//    the connection to close.
#pragma once

#include <cstddef>
#include <string>

#include "model/result.h"

namespace httplib {
struct Request;
}  // namespace httplib

namespace gpuplan::api {

inline constexpr size_t kDefaultBodyLimit = 1 << 20;  // 1 MiB: most endpoints
inline constexpr size_t kLargeBodyLimit = 8 << 20;    // 8 MiB: training:batch, POST /prices
inline constexpr size_t kImportBodyLimit = 20 << 20;  // 20 MiB: POST /catalog/import

// The largest body `method` `path` accepts (bytes): the limits above.
size_t BodyLimit(const std::string& method, const std::string& path);

struct Admission {
  int status = 0;           // 0: admitted; else the 4xx to answer
  Error error;              // what to say (fields name the path, parameter or header)
  size_t body_bytes = 0;    // when admitted: the body's length
};

// Never throws for any request.
Admission AdmitRequest(const httplib::Request& req);

// Adds "Content-Length: 0" to a body-carrying method without one (see above).
void NormalizeEmptyBody(httplib::Request& req);

}  // namespace gpuplan::api
