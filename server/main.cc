// gpuplan: the command-line entry point. Subcommands: serve, migrate, estimate, recommend,
// compare, gpus, instances, workloads, keys, import, measurements, export, catalog refresh,
// calibrate.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <cstdlib>
#include <thread>

#include "server/admin_commands.h"
#include "server/app.h"
#include "server/calibrate_command.h"
#include "server/catalog_commands.h"
#include "server/catalog_refresh_command.h"
#include "server/log_format.h"
#include "server/plan_commands.h"

#include <iostream>

namespace {

// Blocks SIGINT/SIGTERM in every thread and stops `app` from a dedicated waiter.
int ServeUntilSignal(const gpuplan::server::ServeConfig& config) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  gpuplan::server::UseLogFormat(config.log_format);
  auto app = gpuplan::server::App::Create(config);
  if (!app.ok()) {
    spdlog::critical("cannot start: {}", app.error().message);
    return 1;
  }
  auto port = (*app)->Bind();
  if (!port.ok()) {
    spdlog::critical("cannot start: {}", port.error().message);
    return 1;
  }
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&signals, &signal);
    spdlog::info("received signal {}: draining and stopping", signal);
    (*app)->Stop();
  });
  (*app)->Run();
  // Run() also returns if the listener fails; wake the waiter so it can be joined.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr so that stdout carries only command output (keys, exports, JSON).
  spdlog::set_default_logger(spdlog::stderr_color_mt("gpuplan"));
  CLI::App cli{"gpuplan: cloud GPU instance and cost planning"};
  cli.require_subcommand(1);

  gpuplan::server::ServeConfig config;
  CLI::App* serve = cli.add_subcommand("serve", "serve the REST API and the dashboard");
  serve->add_option("--host", config.host, "address to listen on")->envname("GPUPLAN_HOST")
      ->capture_default_str();
  serve->add_option("--port", config.port, "port to listen on (0 = any free port)")
      ->envname("GPUPLAN_PORT")->check(CLI::Range(0, 65535))->capture_default_str();
  serve->add_option("--db", config.db_path, "database: a SQLite file or a postgresql:// URL (created or migrated, and seeded if new)")
      ->envname("GPUPLAN_DB")->capture_default_str();
  serve->add_option("--static-dir", config.static_dir, "dashboard files")
      ->envname("GPUPLAN_STATIC_DIR")->capture_default_str();
  serve->add_option("--db-connections", config.db_connections, "database connection pool size (per process)")
      ->envname("GPUPLAN_DB_CONNECTIONS")->check(CLI::Range(1, 256))->capture_default_str();
  serve->add_option("--max-connections", config.limits.max_connections,
                    "open HTTP connections served at once (one worker thread each)")
      ->envname("GPUPLAN_MAX_CONNECTIONS")->check(CLI::Range(1, 4096))->capture_default_str();
  serve->add_option("--max-connections-per-client", config.limits.max_connections_per_client,
                    "open HTTP connections per client address")
      ->envname("GPUPLAN_MAX_CONNECTIONS_PER_CLIENT")->check(CLI::Range(1, 4096))
      ->capture_default_str();
  serve->add_flag("--require-auth-for-reads", config.require_auth_for_reads,
                  "every /api/v1/* request, whatever its method, needs an API key")
      ->envname("GPUPLAN_REQUIRE_AUTH_FOR_READS");
  serve->add_option("--cors-origin", config.cors_origins,
                    "browser origin allowed to call the API (repeat, or comma-separated; * = any)")
      ->envname("GPUPLAN_CORS_ORIGIN")->delimiter(',');
  serve->add_option("--log-format", config.log_format, "text | json (one JSON object a line)")
      ->envname("GPUPLAN_LOG_FORMAT")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  serve->add_option("--catalog-recheck-ms", config.catalog_recheck_ms,
                    "ms a read catalog generation is trusted before it is read again (writes "
                    "through this server are seen at once; 0: read on every request)")
      ->envname("GPUPLAN_CATALOG_RECHECK_MS")->check(CLI::Range(0, 60000))->capture_default_str();
  serve->add_option("--stale-price-days", config.stale_price_days,
                    "days after which a price is flagged stale in listings and answers")
      ->envname("GPUPLAN_STALE_PRICE_DAYS")->check(CLI::Range(1, gpuplan::plan::kMaxStalePriceDays))->capture_default_str();
  // A TOML file of the same settings, under [serve] (key = the flag without dashes:
  // port = 8080); flags win over it, it wins over GPUPLAN_* variables (docs/operations.md).
  // CLI11 reads config files on the main app: `serve --config F` falls through to it.
  // GPUPLAN_CONFIG names the file when --config does not (then it must exist too).
  const char* config_env = std::getenv("GPUPLAN_CONFIG");
  cli.set_config("--config", config_env ? config_env : "",
                 "TOML configuration file, settings under [serve] (see serve --print-config)",
                 config_env != nullptr && *config_env != '\0');
  cli.allow_config_extras(CLI::config_extras_mode::error);  // a misspelt key is an error
  serve->fallthrough();
  bool print_config = false;
  serve->add_flag("--print-config", print_config,
                  "print the configuration these flags, variables and file give (TOML), and exit")
      ->configurable(false);

  std::string migrate_db = config.db_path;
  CLI::App* migrate = cli.add_subcommand("migrate", "create or upgrade the database and seed it");
  migrate->add_option("--db", migrate_db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB")
      ->capture_default_str();

  gpuplan::server::CalibrateOptions calibrate_options;
  bool no_fit = false;
  CLI::App* calibrate =
      cli.add_subcommand("calibrate", "fit the model's constants on calibration.csv, print errors");
  calibrate->add_flag("--no-fit", no_fit, "score the shipped constants without fitting");
  calibrate->add_flag("--cross-validate", calibrate_options.cross_validate,
                      "also report leave-one-model-out errors");
  calibrate->add_flag("--rows", calibrate_options.rows, "print every row's prediction");
  calibrate->add_flag("--serving", calibrate_options.serving,
                      "the serving engines' constants, on serving_calibration.csv");

  gpuplan::server::EstimateOptions estimate_options;
  CLI::App* estimate =
      cli.add_subcommand("estimate", "estimate training time, memory and cost without a server");
  gpuplan::server::AddEstimateOptions(*estimate, estimate_options);
  gpuplan::server::RecommendOptions recommend_options;
  CLI::App* recommend =
      cli.add_subcommand("recommend", "rank catalog options for a training or serving job");
  gpuplan::server::AddRecommendOptions(*recommend, recommend_options);
  gpuplan::server::CompareOptions compare_options;
  CLI::App* compare = cli.add_subcommand("compare", "one workload across GPUs, best value first");
  gpuplan::server::AddCompareOptions(*compare, compare_options);

  gpuplan::server::CatalogListOptions gpus_options, instances_options, workloads_options;
  CLI::App* gpus_cmd = cli.add_subcommand("gpus", "list the catalog's GPUs (GET /api/v1/gpus)");
  gpuplan::server::AddCatalogListOptions(*gpus_cmd, gpus_options, false);
  CLI::App* instances_cmd = cli.add_subcommand(
      "instances", "list catalog offers with their prices (GET /api/v1/instances)");
  gpuplan::server::AddCatalogListOptions(*instances_cmd, instances_options, true);
  CLI::App* workloads_cmd =
      cli.add_subcommand("workloads", "list the workload presets (GET /api/v1/workloads)");
  gpuplan::server::AddCatalogListOptions(*workloads_cmd, workloads_options, false);

  std::string admin_db = config.db_path, key_name, key_scope = "write", revoke_target;
  CLI::App* keys = cli.add_subcommand("keys", "manage API keys");
  keys->require_subcommand(1);
  CLI::App* keys_create = keys->add_subcommand("create", "create a key and print it once");
  keys_create->add_option("--db", admin_db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB");
  keys_create->add_option("--name", key_name, "who or what uses the key")->required();
  keys_create->add_option("--scope", key_scope, "write | admin")->check(CLI::IsMember({"write", "admin"}))
      ->capture_default_str();
  CLI::App* keys_list = keys->add_subcommand("list", "list keys (never the keys themselves)");
  keys_list->add_option("--db", admin_db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB");
  CLI::App* keys_revoke = keys->add_subcommand("revoke", "revoke a key by id or name");
  keys_revoke->add_option("--db", admin_db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB");
  keys_revoke->add_option("key", revoke_target, "id or name")->required();

  gpuplan::server::ImportCommand import_command;
  import_command.db = config.db_path;
  CLI::App* import = cli.add_subcommand("import", "import a catalog file (one transaction)");
  import->add_option("--db", import_command.db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB");
  import->add_option("--format", import_command.format,
                     "skypilot | aws-spot-history | aws-spot-advisor | gpuplan")
      ->required()
      ->check(CLI::IsMember({"skypilot", "aws-spot-history", "aws-spot-advisor", "gpuplan"}));
  import->add_option("--cloud", import_command.cloud, "the cloud a SkyPilot file describes");
  import->add_flag("--dry-run", import_command.dry_run, "validate and count, write nothing");
  import->add_flag("--partial", import_command.partial, "keep valid rows when some are rejected");
  import->add_option("file", import_command.file, "file to import")->required();

  gpuplan::server::MeasurementsImportCommand measurements_import;
  measurements_import.db = config.db_path;
  CLI::App* measurements = cli.add_subcommand("measurements", "measured training runs");
  measurements->require_subcommand(1);
  CLI::App* measurements_import_cmd = measurements->add_subcommand(
      "import", "import a CSV of measured runs (one transaction)");
  measurements_import_cmd->add_option("--db", measurements_import.db, "database: a SQLite file or a postgresql:// URL")
      ->envname("GPUPLAN_DB");
  measurements_import_cmd->add_option("--owner", measurements_import.owner,
                                      "name of the API key whose runs they are");
  measurements_import_cmd->add_flag("--shared", measurements_import.shared,
                                    "every run is shared with all API keys");
  measurements_import_cmd->add_option("file", measurements_import.file, "CSV file")->required();

  std::string export_format = "json";
  CLI::App* export_cmd = cli.add_subcommand("export", "print the catalog (gpuplan JSON or CSV)");
  export_cmd->add_option("--db", admin_db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB");
  export_cmd->add_option("--format", export_format, "json | csv")
      ->check(CLI::IsMember({"json", "csv"}))->capture_default_str();

  gpuplan::server::CatalogRefreshCommand refresh_command;
  refresh_command.db = config.db_path;
  CLI::App* catalog_cmd = cli.add_subcommand("catalog", "maintain the catalog");
  catalog_cmd->require_subcommand(1);
  CLI::App* refresh = catalog_cmd->add_subcommand(
      "refresh", "import SkyPilot catalog CSVs of several clouds in one transaction; "
                 "print what changed");
  refresh->add_option("--db", refresh_command.db, "database: a SQLite file or a postgresql:// URL")->envname("GPUPLAN_DB");
  refresh->add_option("--cloud", refresh_command.clouds,
                      "a cloud to refresh (repeat, or comma-separated; default: every cloud of "
                      "the catalog that the source has)")->delimiter(',');
  refresh->add_option("--from", refresh_command.from,
                      "a directory (<cloud>/vms.csv or <cloud>_vms_gpu.csv) or an http(s) URL "
                      "(<url>/<cloud>/vms.csv); default: SkyPilot's hosted catalog");
  refresh->add_option("--observed-at", refresh_command.observed_at,
                      "date stamped on the prices (ISO 8601; default: now)");
  refresh->add_flag("--json", refresh_command.json, "print the report as JSON");

  CLI11_PARSE(cli, argc, argv);

  if (keys_create->parsed()) return gpuplan::server::KeysCreate(admin_db, key_name, key_scope, std::cout, std::cerr);
  if (keys_list->parsed()) return gpuplan::server::KeysList(admin_db, std::cout, std::cerr);
  if (keys_revoke->parsed()) return gpuplan::server::KeysRevoke(admin_db, revoke_target, std::cout, std::cerr);
  if (import->parsed()) return gpuplan::server::RunImport(import_command, std::cout, std::cerr);
  if (measurements_import_cmd->parsed()) {
    return gpuplan::server::RunMeasurementsImport(measurements_import, std::cout, std::cerr);
  }
  if (refresh->parsed()) return gpuplan::server::RunCatalogRefresh(refresh_command, std::cout, std::cerr);
  if (export_cmd->parsed()) return gpuplan::server::RunExport(admin_db, export_format, std::cout, std::cerr);

  if (gpus_cmd->parsed()) return gpuplan::server::RunListGpus(gpus_options, std::cout, std::cerr);
  if (instances_cmd->parsed()) {
    return gpuplan::server::RunListInstances(instances_options, std::cout, std::cerr);
  }
  if (workloads_cmd->parsed()) {
    return gpuplan::server::RunListWorkloads(workloads_options, std::cout, std::cerr);
  }
  if (recommend->parsed()) {
    return gpuplan::server::RunRecommend(recommend_options, std::cout, std::cerr);
  }
  if (compare->parsed()) return gpuplan::server::RunCompare(compare_options, std::cout, std::cerr);
  if (estimate->parsed()) {
    return gpuplan::server::RunEstimate(estimate_options, std::cout, std::cerr);
  }

  if (calibrate->parsed()) {
    calibrate_options.fit = !no_fit;
    if (calibrate_options.serving) {
      return gpuplan::server::RunServingCalibrate(calibrate_options, std::cout);
    }
    return gpuplan::server::RunCalibrate(calibrate_options, std::cout);
  }

  if (serve->parsed() && print_config) {
    std::cout << "# gpuplan serve configuration: use with --config FILE\n[serve]\n"
              << serve->config_to_str(true, true);
    return 0;
  }
  if (serve->parsed()) return ServeUntilSignal(config);
  if (migrate->parsed()) {
    auto status = gpuplan::server::PrepareDatabase(migrate_db);
    if (!status.ok()) {
      spdlog::critical("{}", status.error().message);
      return 1;
    }
    return 0;
  }
  return 0;
}
