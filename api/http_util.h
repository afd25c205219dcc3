// Small helpers shared by the route files (httplib.h is included only in .cc files).
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "api/json_encode.h"
#include "api/problem.h"
#include "api/routes.h"

namespace gpuplan::api {

inline void WriteJson(httplib::Response& res, const nlohmann::json& body, int status = 200) {
  res.status = status;
  res.set_content(EncodeJson(body), "application/json");
}
// An answer already encoded (JsonWriter::Take, the plan renderers).
inline void WriteJsonText(httplib::Response& res, std::string text, int status = 200) {
  res.status = status;
  res.set_content(std::move(text), "application/json");
}

// {"items": [...], "next_cursor": null} for lists that fit in one page.
inline nlohmann::json ListJson(nlohmann::json items) {
  return {{"items", std::move(items)}, {"next_cursor", nullptr}};
}

// Binds a handler that takes the API context to an httplib handler.
using ContextHandler = void (*)(const ApiContext&, const httplib::Request&, httplib::Response&);
inline httplib::Server::Handler Bind(const ApiContext& context, ContextHandler fn) {
  return [context, fn](const httplib::Request& req, httplib::Response& res) {
    fn(context, req, res);
  };
}

}  // namespace gpuplan::api
