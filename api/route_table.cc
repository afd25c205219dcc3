#include "api/route_table.h"

#include <algorithm>
#include <stdexcept>

#include "plan/deadline.h"

namespace gpuplan::api {

namespace {

const std::string kNoRoute;
thread_local const std::string* current_route = &kNoRoute;

// "/api/v1/gpus/{id}" -> "/api/v1/gpus/([^/]+)" (httplib matches the whole path).
std::string PatternOf(const std::string& path_template) {
  std::string out;
  for (size_t i = 0; i < path_template.size(); ++i) {
    char c = path_template[i];
    if (c == '{') {
      size_t close = path_template.find('}', i);
      if (close == std::string::npos) {
        throw std::invalid_argument("route template without its '}': " + path_template);
      }
      out += "([^/]+)";
      i = close;
    } else if (c == '.' || c == '+' || c == '*' || c == '?' || c == '(' || c == ')' ||
               c == '[' || c == ']' || c == '\\' || c == '^' || c == '$' || c == '|') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

const std::string& CurrentRoute() { return *current_route; }

std::string JoinMethods(const std::vector<std::string>& methods) {
  std::string out;
  for (const std::string& m : methods) out += (out.empty() ? "" : ", ") + m;
  return out;
}
void ResetCurrentRoute() { current_route = &kNoRoute; }

void RouteTable::Add(const std::string& method, const std::string& path_template,
                     httplib::Server::Handler handler) {
  std::string pattern = PatternOf(path_template);
  routes_.push_back(Route{method, path_template, std::regex(pattern)});
  const std::string* name = &routes_.back().path_template;
  auto tagged = [name, handler = std::move(handler)](const httplib::Request& req,
                                                     httplib::Response& res) {
    current_route = name;
    plan::RestartRequestDeadline();  // the body is read: the work starts now
    handler(req, res);
  };
  if (method == "GET") {
    server_.Get(pattern, std::move(tagged));
  } else if (method == "POST") {
    server_.Post(pattern, std::move(tagged));
  } else if (method == "PUT") {
    server_.Put(pattern, std::move(tagged));
  } else if (method == "DELETE") {
    server_.Delete(pattern, std::move(tagged));
  } else {
    routes_.pop_back();  // not listed in Allow either
    throw std::invalid_argument("route method " + method + " is not one of GET, POST, PUT, DELETE");
  }
}

std::string RouteTable::TemplateFor(const std::string& path) const {
  for (const Route& r : routes_) {
    if (std::regex_match(path, r.pattern)) return r.path_template;
  }
  return "";
}

std::vector<std::string> RouteTable::MethodsFor(const std::string& path) const {
  static const std::vector<std::string> kOrder = {"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"};
  std::vector<std::string> found;
  for (const Route& r : routes_) {
    if (std::regex_match(path, r.pattern)) {
      found.push_back(r.method);
      if (r.method == "GET") found.push_back("HEAD");
    }
  }
  if (found.empty()) return found;
  found.push_back("OPTIONS");
  std::vector<std::string> out;
  for (const std::string& m : kOrder) {
    if (std::find(found.begin(), found.end(), m) != found.end()) out.push_back(m);
  }
  return out;
}

}  // namespace gpuplan::api
