// Every route the server answers, registered by its template ("/api/v1/gpus/{id}"): the
// template is what logs and metrics name a request by, and the table knows which methods a
// path answers to (for 405 with Allow, and OPTIONS).
#pragma once

#include <deque>
#include <regex>
#include <string>
#include <vector>

#include <httplib.h>

namespace gpuplan::api {

class RouteTable {
 public:
  explicit RouteTable(httplib::Server& server) : server_(server) {}

  // Registers `handler` for `method` (GET, POST, PUT, DELETE) at `path_template`, whose
  // `{name}` segments match one path segment each (the handler reads them from
  // req.matches[1..]). The handler runs with CurrentRoute() set to the template.
  // std::invalid_argument for another method or a '{' without its '}' (a wiring mistake).
  void Add(const std::string& method, const std::string& path_template,
           httplib::Server::Handler handler);
  void Get(const std::string& t, httplib::Server::Handler h) { Add("GET", t, std::move(h)); }
  void Post(const std::string& t, httplib::Server::Handler h) { Add("POST", t, std::move(h)); }
  void Put(const std::string& t, httplib::Server::Handler h) { Add("PUT", t, std::move(h)); }
  void Delete(const std::string& t, httplib::Server::Handler h) { Add("DELETE", t, std::move(h)); }

  // The methods `path` answers to, in a fixed order, with HEAD where GET is and OPTIONS;
  // empty when no route matches the path. Matches every route's pattern: not for the hot
  // path (the 404 handler and OPTIONS use it).
  std::vector<std::string> MethodsFor(const std::string& path) const;

  // The template of the first route whose pattern matches `path` (any method), or "".
  // Matches patterns: for requests answered before routing (304, 401, 405, OPTIONS).
  std::string TemplateFor(const std::string& path) const;

 private:
  struct Route {
    std::string method;
    std::string path_template;
    std::regex pattern;
  };

  httplib::Server& server_;
  std::deque<Route> routes_;  // stable addresses: CurrentRoute() points into them
};

// "GET, HEAD, OPTIONS": an Allow header's value.
std::string JoinMethods(const std::vector<std::string>& methods);

// The template of the route this thread is answering: set when a registered handler runs,
// empty before routing and for requests no route took (static files, 404, 405).
const std::string& CurrentRoute();
// Forgets it: at the start of every request.
void ResetCurrentRoute();

}  // namespace gpuplan::api
