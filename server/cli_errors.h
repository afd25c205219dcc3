// How every CLI subcommand reports an error: "error: MESSAGE" and one indented line per
// field, named as the request names it (api/field_names.h), on `err`, and the exit status: 2 when
// the input was wrong (invalid, not found, conflict), 1 when the catalog or storage failed.
#pragma once

#include <ostream>

#include "model/result.h"

namespace gpuplan::server {

int ReportError(const Error& e, std::ostream& err);

}  // namespace gpuplan::server
