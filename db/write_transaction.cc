#include "db/write_transaction.h"

#include <sqlite3.h>

namespace gpuplan::db {

bool IsBusy(const SQLite::Exception& e) {
  int primary = e.getErrorCode() & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Error StorageError(const SQLite::Exception& e, const std::string& item, const std::string& field) {
  if (IsBusy(e)) {
    return Error::Unavailable("the catalog is busy with another write; retry shortly");
  }
  if ((e.getErrorCode() & 0xff) == SQLITE_CONSTRAINT) {
    int extended = e.getExtendedErrorCode();
    Error out;
    if (extended == SQLITE_CONSTRAINT_UNIQUE || extended == SQLITE_CONSTRAINT_PRIMARYKEY) {
      out = Error{ErrorCode::kConflict, item + " exists already", {}};
    } else if (extended == SQLITE_CONSTRAINT_FOREIGNKEY) {
      out = Error{ErrorCode::kInvalidArgument, item + " refers to a record that does not exist", {}};
    } else {
      out = Error{ErrorCode::kInvalidArgument, item + " has a value the catalog refuses", {}};
    }
    if (!field.empty()) out.fields.push_back({field, out.message});
    return out;
  }
  return Error::Unavailable("the database could not complete the write of " + item);
}

}  // namespace gpuplan::db
