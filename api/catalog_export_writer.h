// The catalog export, written a piece at a time from a db::CatalogSnapshot so that a
// catalog of any size streams in bounded memory (about one piece, ~64 KiB, per export).
//   json: the native gpuplan format (lossless; POST /catalog/import?format=gpuplan reads it
//         back). Keys in alphabetical order, items in key order, no whitespace.
//   csv:  one row per price observation with its instance type's GPU columns; every text
//         cell goes through CsvTextCell, numbers are written as numbers. Nothing imports
//         this CSV back (the json export is the round trip), so the escape stays.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "db/catalog_export.h"
#include "model/result.h"

namespace gpuplan::api {

enum class CatalogExportFormat { kJson, kCsv };

// One text cell of the CSV export. A cell a spreadsheet would run as a formula (first byte
// '=', '+', '-', '@', tab or CR; OWASP "CSV injection") gets a leading "'"; then a cell
// holding ',', '"', CR or LF, or starting or ending with a space or tab (which readers
// trim), is quoted per RFC 4180 ('"' doubled). Reading the cell back
// (db::ParseCsv) and removing that one "'" gives `text` again.
std::string CsvTextCell(std::string_view text);
// True when CsvTextCell prefixes `text` with "'".
bool CsvNeedsFormulaEscape(std::string_view text);

class ExportWriter {
 public:
  // Reads the reference tables now (kUnavailable on database errors).
  static Result<std::unique_ptr<ExportWriter>> Start(std::unique_ptr<db::CatalogSnapshot> snapshot,
                                                     CatalogExportFormat format,
                                                     const std::string& exported_at);

  // Appends the next piece (at least `min_bytes` unless the export ends) to `out`.
  // Returns false once everything has been written. Throws SQLite::Exception when the
  // database fails mid-way (the caller then aborts the transfer).
  bool Next(std::string& out, size_t min_bytes = 64 * 1024);

 private:
  enum class Stage { kHead, kTypes, kPrices, kDone };
  ExportWriter(std::unique_ptr<db::CatalogSnapshot> snapshot, CatalogExportFormat format);
  void CsvPrices(std::string& out, size_t min_bytes);

  std::unique_ptr<db::CatalogSnapshot> snapshot_;
  CatalogExportFormat format_;
  Stage stage_ = Stage::kHead;
  std::string head_, tail_;  // JSON before the instance types and after the prices
  bool first_ = true;
  // CSV: the instance type cursor, merged with the prices (both in (cloud, id) order).
  db::InstanceType type_;
  bool have_type_ = false, types_done_ = false;
};

}  // namespace gpuplan::api
