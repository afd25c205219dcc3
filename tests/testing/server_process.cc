#include "tests/testing/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gpuplan::testing {

ServerProcess::ServerProcess(const std::string& db_path, const std::string& log_path,
                             const std::vector<std::string>& args, const std::string& static_dir)
    : log_path_(log_path) {
  std::vector<std::string> argv = {GPUPLAN_BINARY, "serve",        "--port", "0",
                                   "--db",         db_path,        "--static-dir", static_dir};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> c_args;
    for (auto& a : argv) c_args.push_back(a.data());
    c_args.push_back(nullptr);
    ::execv(c_args[0], c_args.data());
    ::_exit(127);
  }
  const std::string marker = "listening on http://127.0.0.1:";
  for (int i = 0; i < 300; ++i) {
    std::string log = Log();
    auto at = log.find(marker);
    if (at != std::string::npos) {
      port_ = std::atoi(log.c_str() + at + marker.size());
      if (port_ > 0) return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("gpuplan exited at start:\n" + Log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Stop(SIGKILL);
  throw std::runtime_error("gpuplan did not log its port:\n" + Log());
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) Stop(SIGKILL);
}

std::string ServerProcess::Log() const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

long ServerProcess::StatusKib(const std::string& field) const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::atol(line.c_str() + field.size() + 1);
  }
  return 0;
}

bool ServerProcess::ResetPeak() const {
  std::ofstream out("/proc/" + std::to_string(pid_) + "/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

int ServerProcess::Stop(int signal) {
  if (pid_ <= 0) return 0;
  ::kill(pid_, signal);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

}  // namespace gpuplan::testing
