// CSV reading (RFC 4180: quoted fields, doubled quotes, CRLF or LF) over libcsv, with
// columns looked up by header name so that sources may add or reorder columns.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace gpuplan::db {

struct CsvRow {
  int line = 0;  // 1-based physical line where the row starts (the header is line 1)
  std::vector<std::string> fields;
};

class CsvTable {
 public:
  CsvTable(std::vector<std::string> header, std::vector<CsvRow> rows)
      : header_(std::move(header)), rows_(std::move(rows)) {}

  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }

  // Index of the column named `name` (exact, case-sensitive match), or nullopt.
  std::optional<size_t> Column(std::string_view name) const;

  // The field of `row` in column `column`, or "" when the row is short or column is unset.
  static std::string_view Field(const CsvRow& row, std::optional<size_t> column);

 private:
  std::vector<std::string> header_;
  std::vector<CsvRow> rows_;
};

// Parses `text` whose first row is the header. Fails with kInvalidArgument naming the
// line on malformed quoting or an empty input.
Result<CsvTable> ParseCsv(std::string_view text);

}  // namespace gpuplan::db
