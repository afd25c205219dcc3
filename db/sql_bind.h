// Binding values that may be absent to statements (db/sql.h): NULL for nullopt. Header-only;
// as thread-safe as the statement (one thread at a time).
#pragma once

#include <optional>

#include "db/sql.h"

namespace gpuplan::db {

// Binds `value` to parameter `index` of `stmt`, or NULL when it is nullopt.
template <typename T>
void BindOptional(Statement& stmt, int index, const std::optional<T>& value) {
  if (value) {
    stmt.bind(index, *value);
  } else {
    stmt.bind(index);
  }
}

}  // namespace gpuplan::db
