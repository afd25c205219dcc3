#include "server/cli_errors.h"

#include "api/field_names.h"

namespace gpuplan::server {

int ReportError(const Error& e, std::ostream& err) {
  err << "error: " << e.message << "\n";
  for (const auto& f : e.fields) err << "  " << api::WireName(f) << ": " << f.detail << "\n";
  return e.code == ErrorCode::kInvalidArgument || e.code == ErrorCode::kConflict ||
                 e.code == ErrorCode::kNotFound
             ? 2
             : 1;
}

}  // namespace gpuplan::server
