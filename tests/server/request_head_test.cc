// The strict request-head grammar and the single byte range, table-driven.
#include "server/request_head.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::server {
namespace {

struct Case {
  std::string head;
  int status;  // 0: a complete, well-formed head
};

TEST(RequestHeadCheckerTest, AcceptsWellFormedHeadsAndNamesWhatIsWrong) {
  std::string long_target(8200, 'a');
  const Case cases[] = {
      {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0},
      {"POST /a?b=c HTTP/1.0\r\nContent-Length: 2\r\nX-Tab:\tv\r\n\r\n", 0},
      {"OPTIONS * HTTP/1.1\r\n\r\n", 0},
      {"PROPFIND / HTTP/1.1\r\n\r\n", 501},
      {"get / HTTP/1.1\r\n\r\n", 501},
      {"G(T / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.2\r\n\r\n", 505},
      {"GET / HTTP/11\r\n\r\n", 400},
      {"GET /\r\n\r\n", 400},
      {"GET  / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1 \r\n\r\n", 400},
      {std::string("GET /\0 HTTP/1.1\r\n\r\n", 19), 400},
      {"GET /" + long_target + " HTTP/1.1\r\n\r\n", 414},
      {"GET / HTTP/1.1\r\nX: " + long_target + "\r\n\r\n", 431},
      {"GET / HTTP/1.1\r\nX: 1\r\n folded\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX : 1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\n: empty name\r\n\r\n", 400},
      {"GET / HTTP/1.1\nHost: x\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: x\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", 400},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.head.substr(0, 60));
    RequestHeadChecker checker;
    auto state = checker.Check(c.head);
    if (c.status == 0) {
      EXPECT_EQ(state, RequestHeadChecker::State::kComplete) << checker.detail();
      EXPECT_EQ(checker.head_length(), c.head.size());
    } else {
      EXPECT_EQ(state, RequestHeadChecker::State::kMalformed);
      EXPECT_EQ(checker.status(), c.status) << checker.detail();
      EXPECT_FALSE(checker.field().empty());
    }
  }
}

TEST(RequestHeadCheckerTest, ChecksAHeadArrivingInPiecesAndStopsAtItsBlankLine) {
  std::string head = "GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=0-1 \r\n\r\n";
  std::string wire = head + "GET /next HTTP/1.1\r\n\r\n";
  RequestHeadChecker checker;
  for (size_t n = 1; n < head.size(); ++n) {
    ASSERT_EQ(checker.Check(std::string_view(wire).substr(0, n)),
              RequestHeadChecker::State::kIncomplete) << n;
  }
  ASSERT_EQ(checker.Check(wire), RequestHeadChecker::State::kComplete);
  EXPECT_EQ(checker.head_length(), head.size());
  ASSERT_EQ(checker.range_lines().size(), 1u);
  EXPECT_EQ(checker.range_lines()[0].value, "bytes=0-1");
  EXPECT_EQ(head.substr(checker.range_lines()[0].begin,
                        checker.range_lines()[0].end - checker.range_lines()[0].begin),
            "Range: bytes=0-1 \r\n");
}

TEST(RequestHeadCheckerTest, ARequestLineOverItsLimitFailsBeforeItEnds) {
  RequestHeadChecker checker;
  EXPECT_EQ(checker.Check("GET /" + std::string(9000, 'a')), RequestHeadChecker::State::kMalformed);
  EXPECT_EQ(checker.status(), 414);
}

TEST(ParseSingleByteRangeTest, OneSatisfiableRangeOrNothing) {
  struct RangeCase {
    std::string value;
    bool ok;
    size_t first = 0, last = 0;
  };
  const RangeCase cases[] = {
      {"bytes=0-9", true, 0, 9},      {"bytes=5-", true, 5, 99},     {"bytes=-10", true, 90, 99},
      {"bytes=-500", true, 0, 99},    {"bytes=90-500", true, 90, 99}, {" bytes = 1-2 ", false},
      {"BYTES=1-2", true, 1, 2},      {"bytes=100-", false},          {"bytes=9-1", false},
      {"bytes=0-1,2-3", false},       {"bytes=-", false},             {"bytes=-0", false},
      {"items=0-1", false},           {"bytes=a-b", false},           {"bytes=+1-2", false},
      {"bytes=99999999999999999999999-", false},                       {"", false},
  };
  for (const RangeCase& c : cases) {
    SCOPED_TRACE(c.value);
    auto range = ParseSingleByteRange(c.value, 100);
    ASSERT_EQ(range.has_value(), c.ok);
    if (range) {
      EXPECT_EQ(range->first, c.first);
      EXPECT_EQ(range->last, c.last);
    }
  }
  EXPECT_FALSE(ParseSingleByteRange("bytes=0-0", 0).has_value());
}

}  // namespace
}  // namespace gpuplan::server
