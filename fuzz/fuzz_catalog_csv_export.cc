// The CSV export's text cells (api::CsvTextCell, what ExportWriter writes for every
// cloud, region, zone, instance type, GPU, kind, currency, timestamp and source) on
// arbitrary text, read back with the project's CSV reader (db::ParseCsv). Checked (abort =
// finding):
//  - the rows and columns read back are exactly the ones written;
//  - every cell reads back as its text, with the one documented "'" before a cell that
//    starts with '=', '+', '-', '@', tab or CR (CsvNeedsFormulaEscape) removed;
//  - no cell read back starts with one of those characters (nothing a spreadsheet runs).
// Input: cells separated by byte 0x1F, rows by 0x1E; byte 0 picks the number of columns
// (2..9); missing cells are empty.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/catalog_export_writer.h"
#include "db/csv.h"
#include "fuzz/fuzz_common.h"

namespace gpuplan::fuzz {
namespace {

using Rows = std::vector<std::vector<std::string>>;

Rows SplitInput(std::string_view text, size_t columns) {
  Rows rows;
  size_t start = 0;
  while (start <= text.size() && rows.size() < 64) {
    size_t end = text.find('\x1e', start);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string> row;
    std::string_view line = text.substr(start, end - start);
    size_t cell_start = 0;
    while (row.size() < columns) {
      size_t cell_end = line.find('\x1f', cell_start);
      if (cell_end == std::string_view::npos) cell_end = line.size();
      row.emplace_back(cell_start <= line.size() ? line.substr(cell_start, cell_end - cell_start)
                                                 : std::string_view());
      cell_start = cell_end + 1;
    }
    rows.push_back(std::move(row));
    start = end + 1;
  }
  return rows;
}

std::string Written(const Rows& rows, size_t columns) {
  std::string out;
  for (size_t c = 0; c < columns; ++c) out += (c ? ",h" : "h") + std::to_string(c);
  out += '\n';
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) out += ',';
      out += api::CsvTextCell(row[c]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace
}  // namespace gpuplan::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  using namespace gpuplan::fuzz;
  if (size == 0) return 0;
  size_t columns = 2 + data[0] % 8;
  std::string text = Text(data + 1, size - 1);
  Rows rows = SplitInput(text, columns);
  std::string csv = Written(rows, columns);
  auto table = db::ParseCsv(csv);
  Require(table.ok(), "the CSV export could not be read back", csv);
  Require(table->header().size() == columns, "header width changed", csv);
  Require(table->rows().size() == rows.size(), "row count changed", csv);
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto& read = table->rows()[r].fields;
    Require(read.size() == columns, "column count changed", csv);
    for (size_t c = 0; c < columns; ++c) {
      const std::string& cell = read[c];
      Require(cell.empty() || std::string_view("=+-@\t\r").find(cell[0]) == std::string_view::npos,
              "a cell starts with a formula character", cell);
      std::string expected = api::CsvNeedsFormulaEscape(rows[r][c]) ? "'" + rows[r][c] : rows[r][c];
      Require(cell == expected, "a cell did not read back as written", cell);
    }
  }
  return 0;
}
