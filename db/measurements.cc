#include "db/measurements.h"

#include <map>

#include "db/catalog_writer.h"
#include "db/field_rules.h"
#include "db/sql.h"
#include "db/write_transaction.h"

namespace gpuplan::db {

namespace {

constexpr const char* kColumns =
    "m.id, m.owner_key_id, coalesce(k.name, ''), m.shared, m.family, m.workload_id, m.gpu_id, "
    "m.gpus_per_node, m.nodes, m.cloud, m.instance_type, m.global_batch, m.precision, "
    "m.framework, m.samples_per_s, m.measured_as, m.measured_value, m.note, m.measured_on, "
    "m.created_at, m.request";

Measurement Read(Statement& s) {
  Measurement m;
  int i = 0;
  m.id = s.getColumn(i++).getInt64();
  if (!s.getColumn(i).isNull()) m.owner_key_id = s.getColumn(i).getInt64();
  ++i;
  m.owner = s.getColumn(i++).getString();
  m.shared = s.getColumn(i++).getInt() != 0;
  m.family = s.getColumn(i++).getString();
  m.workload_id = s.getColumn(i++).getString();
  m.gpu_id = s.getColumn(i++).getString();
  m.gpus_per_node = s.getColumn(i++).getInt();
  m.nodes = s.getColumn(i++).getInt();
  m.cloud = s.getColumn(i++).getString();
  m.instance_type = s.getColumn(i++).getString();
  m.global_batch = s.getColumn(i++).getInt();
  m.precision = s.getColumn(i++).getString();
  m.framework = s.getColumn(i++).getString();
  m.samples_per_s = s.getColumn(i++).getDouble();
  m.measured_as = s.getColumn(i++).getString();
  m.measured_value = s.getColumn(i++).getDouble();
  m.note = s.getColumn(i++).getString();
  m.measured_on = s.getColumn(i++).getString();
  m.created_at = s.getColumn(i++).getString();
  m.request = s.getColumn(i++).getString();
  return m;
}

// kConflict when an owner of `runs` would store more than kMaxRunsPerOwner runs. Runs inside
// the caller's write transaction, so concurrent writers cannot both pass.
std::optional<Error> OverOwnerCap(Connection& db, const std::vector<Measurement>& runs) {
  std::map<std::optional<long long>, long long> adding;
  for (const Measurement& m : runs) ++adding[m.owner_key_id];
  Statement count(db, "SELECT count(*) FROM measurements WHERE owner_key_id IS NOT DISTINCT FROM ?");
  for (const auto& [owner, added] : adding) {
    if (owner) {
      count.bind(1, static_cast<int64_t>(*owner));
    } else {
      count.bind(1);
    }
    long long stored = count.executeStep() ? count.getColumn(0).getInt64() : 0;
    count.reset();
    if (stored + added > kMaxRunsPerOwner) {
      return Error{ErrorCode::kConflict,
                   std::string(owner ? "this API key" : "the runs without an owner") +
                       " would store " + std::to_string(stored + added) +
                       " measured runs; one key may store at most " +
                       std::to_string(kMaxRunsPerOwner) + " (" + std::to_string(stored) +
                       " stored now)",
                   {}};
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<Measurement>> MeasurementStore::Add(const std::vector<Measurement>& runs,
                                                       const std::string& item_prefix) {
  std::vector<Measurement> out;
  size_t index = 0;
  try {
    WriteTransaction tx(db_);
    if (auto over = OverOwnerCap(db_, runs)) return *over;
    Statement insert(
        db_,
        "INSERT INTO measurements (owner_key_id, shared, family, workload_id, gpu_id, "
        "gpus_per_node, nodes, cloud, instance_type, global_batch, precision, framework, "
        "samples_per_s, measured_as, measured_value, note, measured_on, created_at, request) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id");
    Statement read(db_, std::string("SELECT ") + kColumns +
                                    " FROM measurements m LEFT JOIN api_keys k ON "
                                    "k.id = m.owner_key_id WHERE m.id = ?");
    const std::string now = UtcNow();
    for (index = 0; index < runs.size(); ++index) {
      const Measurement& m = runs[index];
      int i = 1;
      if (m.owner_key_id) {
        insert.bind(i++, static_cast<int64_t>(*m.owner_key_id));
      } else {
        insert.bind(i++);
      }
      insert.bind(i++, m.shared ? 1 : 0);
      insert.bind(i++, m.family);
      insert.bind(i++, m.workload_id);
      insert.bind(i++, m.gpu_id);
      insert.bind(i++, m.gpus_per_node);
      insert.bind(i++, m.nodes);
      insert.bind(i++, m.cloud);
      insert.bind(i++, m.instance_type);
      insert.bind(i++, m.global_batch);
      insert.bind(i++, m.precision);
      insert.bind(i++, m.framework);
      insert.bind(i++, m.samples_per_s);
      insert.bind(i++, m.measured_as);
      insert.bind(i++, m.measured_value);
      insert.bind(i++, m.note);
      insert.bind(i++, rules::CanonicalOrSame(m.measured_on));
      insert.bind(i++, now);
      insert.bind(i++, m.request);
      insert.executeStep();
      const long long id = insert.getColumn(0).getInt64();
      insert.reset();
      read.bind(1, id);
      read.executeStep();
      out.push_back(Read(read));
      read.reset();
    }
    tx.commit();
  } catch (const SqlError& e) {
    return StorageError(e, item_prefix + std::to_string(index), item_prefix + std::to_string(index));
  }
  return out;
}

Result<std::vector<Measurement>> MeasurementStore::List(const MeasurementQuery& q) {
  return GuardSqlite([&]() -> Result<std::vector<Measurement>> {
    std::string sql = std::string("SELECT ") + kColumns +
                      " FROM measurements m LEFT JOIN api_keys k ON k.id = m.owner_key_id "
                      "WHERE " +
                      (q.every_owner    ? std::string("1 = 1")
                       : q.owner_key_id ? std::string("(m.shared = 1 OR m.owner_key_id = ?)")
                                        : std::string("m.shared = 1")) +
                      " AND m.id > ?";
    if (!q.family.empty()) sql += " AND m.family = ?";
    if (!q.gpu_id.empty()) sql += " AND m.gpu_id = ?";
    sql += " ORDER BY m.id LIMIT ?";
    Statement s(db_, sql);
    int i = 1;
    if (q.owner_key_id && !q.every_owner) s.bind(i++, static_cast<int64_t>(*q.owner_key_id));
    s.bind(i++, static_cast<int64_t>(q.after_id));
    if (!q.family.empty()) s.bind(i++, q.family);
    if (!q.gpu_id.empty()) s.bind(i++, q.gpu_id);
    s.bind(i++, q.limit);
    std::vector<Measurement> out;
    while (s.executeStep()) out.push_back(Read(s));
    return out;
  });
}

Result<long long> MeasurementStore::AfterNewest(long long count) {
  return GuardSqlite([&]() -> Result<long long> {
    Statement s(db_, "SELECT coalesce((SELECT id FROM measurements ORDER BY id DESC "
                             "LIMIT 1 OFFSET ?), 1) - 1");
    s.bind(1, static_cast<int64_t>(count - 1));
    return s.executeStep() ? s.getColumn(0).getInt64() : 0;
  });
}

}  // namespace gpuplan::db
