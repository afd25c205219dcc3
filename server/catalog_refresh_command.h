// `gpuplan catalog refresh [--cloud C]... [--from DIR|URL] [--observed-at T] [--json]`:
// imports SkyPilot's catalog CSVs (the format `import --format skypilot` reads) for several
// clouds in ONE transaction (db/catalog_refresh.h) and prints what changed per cloud.
//   --from DIR  a local directory (server/catalog_sources.h for the layouts);
//   --from URL  an http(s) directory laid out as upstream, downloaded by this command;
//   no --from   SkyPilot's hosted catalog (kSkypilotCatalogUrl), downloaded.
// Clouds: those named by --cloud (each must be found; a new one is added), else every cloud
// of the catalog that the source has (a directory's other clouds are listed as skipped, a
// catalog cloud the URL does not publish as not refreshed). Any file that fails to parse,
// or holds an invalid row, refuses the whole refresh before anything is written.
// Exit status: 0 refreshed; 2 wrong input (a bad file, an unknown cloud, a bad --from);
// 1 the database or the download failed (server/cli_errors.h).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace gpuplan::server {

struct CatalogRefreshCommand {
  std::string db;
  std::vector<std::string> clouds;  // --cloud, repeated or comma-separated
  std::string from;                 // "" = kSkypilotCatalogUrl
  std::string observed_at;          // stamped on every price; "" = now (UTC)
  bool json = false;                // print the report as JSON instead of text
};

int RunCatalogRefresh(const CatalogRefreshCommand& command, std::ostream& out, std::ostream& err);

}  // namespace gpuplan::server
