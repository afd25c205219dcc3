#include "fuzz/fuzz_common.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "api/body.h"
#include "api/json_encode.h"
#include "api/problem.h"
#include "api/request_admission.h"
#include "db/database.h"
#include "db/migrations.h"
#include "db/seeder.h"
#include "db/text.h"

namespace gpuplan::fuzz {

void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "\n==FUZZ INVARIANT== %.*s\n", static_cast<int>(what.size()), what.data());
  if (!detail.empty()) {
    std::string shown = db::Printable(detail, 2000);
    std::fprintf(stderr, "  detail: %s\n", shown.c_str());
  }
  std::fflush(stderr);
  std::abort();
}

namespace {

// GPUPLAN_FUZZ_TRACE=1 prints every answer (to check what seeds reach).
bool Tracing() {
  static const bool on = std::getenv("GPUPLAN_FUZZ_TRACE") != nullptr;
  return on;
}

void Trace(std::string_view what, std::string_view text) {
  if (!Tracing()) return;
  std::string shown = db::Printable(text, 400);
  std::fprintf(stderr, "[trace] %.*s: %s\n", static_cast<int>(what.size()), what.data(), shown.c_str());
}

struct Catalog {
  std::unique_ptr<db::Connection> db;
  std::unique_ptr<db::CatalogStore> store;
};

Catalog& TheCatalog() {
  static Catalog* catalog = [] {
    auto* c = new Catalog;
    auto db = db::OpenDatabase(":memory:");
    if (!db.ok()) Fail("cannot open the in-memory database", db.error().message);
    c->db = std::move(db).value();
    Status migrated = db::Migrate(*c->db);
    if (!migrated.ok()) Fail("cannot migrate the in-memory database", migrated.error().message);
    auto seeded = db::SeedIfEmpty(*c->db);
    if (!seeded.ok()) Fail("cannot seed the in-memory database", seeded.error().message);
    c->store = std::make_unique<db::CatalogStore>(*c->db);
    return c;
  }();
  return *catalog;
}

void CheckProblemBody(const httplib::Response& res, std::string_view where) {
  Trace(std::string(where) + " " + std::to_string(res.status), res.body);
  Require(res.status >= 400 && res.status <= 599, "an error answer without a 4xx/5xx status", where);
  Require(db::IsValidUtf8(res.body), "a problem body that is not UTF-8", res.body);
  nlohmann::json body = nlohmann::json::parse(res.body, nullptr, false);
  Require(!body.is_discarded() && body.is_object(), "a problem body that is not a JSON object",
          res.body);
  Require(body.contains("detail"),
          "the problem body is the fixed fallback: building the problem threw", res.body);
}

}  // namespace

db::CatalogStore& SeededStore() { return *TheCatalog().store; }
db::Connection& SeededDatabase() { return *TheCatalog().db; }

httplib::Request BodyRequest(const std::string& method, const std::string& path, std::string body) {
  httplib::Request req;
  req.method = method;
  req.path = path;
  req.headers.emplace("Content-Type", "application/json");
  req.headers.emplace("Content-Length", std::to_string(body.size()));
  req.body = std::move(body);
  return req;
}

std::optional<nlohmann::json> ReadBody(const httplib::Request& req) {
  httplib::Response res;
  auto body = api::ReadJsonBody(req, res, api::BodyLimit(req.method, req.path));
  if (body) {
    Require(body->is_object(), "ReadJsonBody returned a body that is not an object");
    return body;
  }
  CheckProblemBody(res, "ReadJsonBody");
  return std::nullopt;
}

void CheckErrorAnswer(const httplib::Request& req, const Error& error, int status) {
  httplib::Response res;
  api::WriteError(req, res, error, status);
  CheckProblemBody(res, "WriteError");
  if (status != 0) Require(res.status == status, "WriteError did not answer the status asked for");
}

void CheckError(const Error& error) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/fuzz";
  CheckErrorAnswer(req, error);
}

void CheckRejection(const Error& error, std::string_view what, const httplib::Request* req) {
  Require(error.code == ErrorCode::kInvalidArgument,
          std::string(what) + " failed with a code other than kInvalidArgument", error.message);
  if (req) {
    CheckErrorAnswer(*req, error);
  } else {
    CheckError(error);
  }
}

void CheckEncodes(const nlohmann::json& value) {
  // What api::EncodeJson answers when dumping threw (api/json_encode.h).
  static const std::string kFallback =
      R"({"type":"about:blank","title":"Internal Server Error","status":500,)"
      R"("detail":"the answer could not be encoded"})";
  std::string text = api::EncodeJson(value);
  Require(text != kFallback, "EncodeJson fell back: dumping the answer threw");
  CheckEncodedText(text, "EncodeJson");
}

void CheckEncodedText(const std::string& text, std::string_view who) {
  Trace("answer", text);
  Require(db::IsValidUtf8(text), std::string(who) + " produced text that is not UTF-8", text);
  nlohmann::json back = nlohmann::json::parse(text, nullptr, false);
  Require(!back.is_discarded(), std::string(who) + " produced text that does not parse", text);
}

}  // namespace gpuplan::fuzz
