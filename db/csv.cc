#include "db/csv.h"

#include <csv.h>

#include <memory>

namespace gpuplan::db {

namespace {

struct ParseState {
  int current_line = 1;   // physical line of the chunk being fed
  int row_start_line = 0; // 0 until the current row's first field is seen
  std::vector<std::string> fields;
  std::vector<CsvRow> rows;
};

void OnField(void* data, size_t len, void* state_ptr) {
  auto* state = static_cast<ParseState*>(state_ptr);
  if (state->row_start_line == 0) state->row_start_line = state->current_line;
  state->fields.emplace_back(data ? static_cast<const char*>(data) : "", data ? len : 0);
}

void OnRow(int /*terminator*/, void* state_ptr) {
  auto* state = static_cast<ParseState*>(state_ptr);
  state->rows.push_back({state->row_start_line, std::move(state->fields)});
  state->fields.clear();
  state->row_start_line = 0;
}

struct ParserDeleter {
  void operator()(csv_parser* p) const {
    csv_free(p);
    delete p;
  }
};

}  // namespace

std::optional<size_t> CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return std::nullopt;
}

std::string_view CsvTable::Field(const CsvRow& row, std::optional<size_t> column) {
  if (!column || *column >= row.fields.size()) return {};
  return row.fields[*column];
}

Result<CsvTable> ParseCsv(std::string_view text) {
  std::unique_ptr<csv_parser, ParserDeleter> parser(new csv_parser);
  if (csv_init(parser.get(), CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    return Error::Internal("csv_init failed");
  }
  // libcsv grows a field 128 bytes at a time by default: quadratic copying for a long field
  // wherever realloc cannot grow in place (61 s for a 5 MiB field under ASan).
  csv_set_blk_size(parser.get(), 64 * 1024);
  ParseState state;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  // Feed one physical line at a time so each row knows the line it started on.
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = (end == std::string_view::npos) ? text.size() : end + 1;
    size_t chunk = end - pos;
    if (csv_parse(parser.get(), text.data() + pos, chunk, OnField, OnRow, &state) != chunk) {
      return Error::Invalid("line " + std::to_string(state.current_line),
                            "malformed CSV at line " + std::to_string(state.current_line) +
                                ": " + csv_strerror(csv_error(parser.get())));
    }
    pos = end;
    ++state.current_line;
  }
  if (csv_fini(parser.get(), OnField, OnRow, &state) != 0) {
    int line = state.row_start_line > 0 ? state.row_start_line : state.current_line - 1;
    return Error::Invalid("line " + std::to_string(line),
                          "malformed CSV in the row starting at line " + std::to_string(line) +
                              " (unterminated quote?): " +
                              std::string(csv_strerror(csv_error(parser.get()))));
  }
  if (state.rows.empty()) return Error::Invalid("line 1", "CSV input has no header row");
  std::vector<std::string> header = std::move(state.rows.front().fields);
  state.rows.erase(state.rows.begin());
  return CsvTable(std::move(header), std::move(state.rows));
}

}  // namespace gpuplan::db
