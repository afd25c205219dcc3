// Runs the real `gpuplan serve` binary as a child process on an ephemeral port, for tests
// that need what an in-process server cannot give: kill -9, the process's own memory
// (VmHWM), its log file. The child is killed (SIGKILL) on destruction if still running.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gpuplan::testing {

class ServerProcess {
 public:
  // Starts `GPUPLAN_BINARY serve --port 0 --db db_path --static-dir static_dir args...`
  // with its output in `log_path` (truncated); waits (up to 30 s) until it logs its port. Throws
  // std::runtime_error when it does not start.
  ServerProcess(const std::string& db_path, const std::string& log_path,
                const std::vector<std::string>& args = {},
                const std::string& static_dir = STATIC_DIR);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // The log so far.
  std::string Log() const;
  // A field of /proc/PID/status in KiB (VmRSS, VmHWM), 0 when unreadable.
  long StatusKib(const std::string& field) const;
  // Resets VmHWM to the current RSS (/proc/PID/clear_refs, Linux 4.0+); false if refused.
  bool ResetPeak() const;
  // Sends `signal` and waits for the process to end; returns its wait status.
  int Stop(int signal);
  bool running() const { return pid_ > 0; }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace gpuplan::testing
