// The strict HTTP/1.1 request-head grammar the connection layer (GuardedServer) checks
// before cpp-httplib parses a request, and the one byte range the static files serve.
//
// Why here and not in httplib: cpp-httplib 0.11.4 answers a malformed request line or
// header with 400/414 but keeps the connection and parses the rest of the bytes as new
// requests (a smuggled request gets answered), silently skips header lines that end in a
// bare LF, and answers Range with multi-part bodies built in memory with no cap. A head
// that passes RequestHeadChecker is one httplib reads the same way a proxy does.
//
// The grammar (RFC 9112 sections 2-5), every line ending in CRLF:
//   request-line = method SP request-target SP HTTP-version
//     method:  a token; GET HEAD POST PUT PATCH DELETE OPTIONS (case-sensitive), any other
//              token is 501 Not Implemented; not a token: 400
//     target:  no control characters; the whole line at most kMaxRequestLineBytes (414)
//     version: HTTP/1.1 or HTTP/1.0; another HTTP/d.d is 505; anything else 400
//   field-line = token ":" value, value without control characters other than HTAB;
//     a line starting with SP or HTAB (obs-fold) is 400; a line over kMaxFieldLineBytes is
//     431. The whole head's budget (64 KiB by default) is the stream's (ConnectionLimits).
//   Content-Length: 1*DIGIT as sent (httplib percent-decodes header values, so "1%30"
//     would reach it as "10" while a proxy reads something else), at most one: else 400.
//   Up to kMaxEmptyLinesBeforeRequest empty lines before the request line are skipped
//     (RFC 9112 2.2); more is 400.
// Pure and deterministic; a checker object serves one request and one thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::server {

inline constexpr size_t kMaxRequestLineBytes = 8192;  // with its CRLF (httplib's own limit)
inline constexpr size_t kMaxFieldLineBytes = 8192;    // one header line, with its CRLF
inline constexpr int kMaxEmptyLinesBeforeRequest = 8;

class RequestHeadChecker {
 public:
  enum class State { kIncomplete, kComplete, kMalformed };

  // `bytes`: what the connection holds for this request so far, starting at its request
  // line; between calls it may only grow at the end. Checks only the lines not yet checked.
  State Check(std::string_view bytes);
  // The connection layer skipped one empty line before the request line (it drops them
  // from the stream); kMalformed once more than kMaxEmptyLinesBeforeRequest were skipped.
  State SkipEmptyLine();

  // kComplete: the head's length in bytes, through the blank line.
  size_t head_length() const { return head_length_; }
  // kMalformed: the status to answer (400, 414, 431, 501, 505), the field it concerns
  // ("request line", "method", "header X-Name") and why, in fixed ASCII text.
  int status() const { return status_; }
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

  // kComplete: where each Range field line lies in the head ([begin, end), CRLF included)
  // and its value. The connection layer takes Range away from httplib (see above).
  struct Line {
    size_t begin = 0, end = 0;
    std::string value;
  };
  const std::vector<Line>& range_lines() const { return range_lines_; }

 private:
  State Fail(int status, std::string field, std::string detail);
  State CheckRequestLine(std::string_view line);
  State CheckFieldLine(std::string_view line, size_t begin);

  size_t checked_ = 0;  // bytes of whole lines already checked
  bool request_line_seen_ = false;
  bool content_length_seen_ = false;
  int empty_lines_ = 0;
  size_t head_length_ = 0;
  int status_ = 0;
  std::string field_, detail_;
  std::vector<Line> range_lines_;
};

// A single byte range of a representation `length` bytes long: [first, last], inclusive.
struct ByteRange {
  size_t first = 0, last = 0;
};
// True when a Range header value names the bytes unit ("bytes=", any case). A Range in
// another unit is ignored, the whole representation served (RFC 9110 14.2).
bool IsByteRangeUnit(std::string_view value);
// Parses a Range header value against `length` (RFC 9110 14.1.2): "bytes=a-b", "bytes=a-"
// or "bytes=-n" (the last n bytes), spaces around the range allowed. nullopt for anything
// else — several ranges, a malformed or unsatisfiable range, an empty representation —
// which the static files answer with 416 (another unit is never asked: IsByteRangeUnit).
std::optional<ByteRange> ParseSingleByteRange(std::string_view value, size_t length);

}  // namespace gpuplan::server
