// How every catalog write talks to SQLite: one BEGIN IMMEDIATE transaction (the write
// lock is taken at the start, so the connection's busy timeout applies instead of an
// immediate SQLITE_BUSY_SNAPSHOT when a read turns into a write), and one mapping of
// SQLite failures to errors that name the item and leak no SQLite text:
//   busy/locked after the busy timeout -> kUnavailable (the api answers 503 + Retry-After)
//   UNIQUE / PRIMARY KEY               -> kConflict   ("<item> exists already")
//   FOREIGN KEY                        -> kInvalidArgument ("<item> refers to ... missing")
//   CHECK / NOT NULL                   -> kInvalidArgument ("<item> has a value ... refused")
//   anything else                      -> kUnavailable ("the database could not ...")
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Transaction.h>

#include <string>

#include "model/result.h"

namespace gpuplan::db {

class WriteTransaction {
 public:
  explicit WriteTransaction(SQLite::Database& db)
      : tx_(db, SQLite::TransactionBehavior::IMMEDIATE) {}
  void commit() { tx_.commit(); }  // throws SQLite::Exception

 private:
  SQLite::Transaction tx_;
};

// `item` names what was being written, e.g. "instance type 'p5.48xlarge' in cloud 'aws'"
// or "/prices/3"; `field` (optional) is the field the error is attached to.
Error StorageError(const SQLite::Exception& e, const std::string& item,
                   const std::string& field = "");

// True for SQLITE_BUSY and SQLITE_LOCKED (and their extended codes).
bool IsBusy(const SQLite::Exception& e);

}  // namespace gpuplan::db
