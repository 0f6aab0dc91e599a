#include "process_util.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace tensorperf::testing {

pid_t start_import(const std::string& url, const std::string& file, int batch_size, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    std::string batch = std::to_string(batch_size);
    execl(DB_IMPORT_TOOL, DB_IMPORT_TOOL, url.c_str(), file.c_str(), batch.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::vector<std::string> make_lines(int seed, int n) {
  std::vector<std::string> lines;
  lines.reserve(n);
  for (int i = 0; i < n; ++i) {
    int arg = 1 + (i % 97);
    double cost = 1e-4 * (1 + (int64_t{i} * 7919 + seed) % 1000);
    lines.push_back(R"({"input": ["llvm -device=arm_cpu -model=m)" + std::to_string(seed % 3) +
                    R"(", "conv2d.arm_cpu", [["TENSOR", [1, )" + std::to_string(arg) +
                    R"(, 56, 56], "float32"]], {}], "config": {"index": )" + std::to_string(i) +
                    R"(, "seed": )" + std::to_string(seed) + R"(, "entity": [["tile", "sp", [4, 16]]]}, "result": [[)" +
                    std::to_string(cost) + R"(], 0, 1.5, 1600000000.0], "version": 0.2, "tvm_version": "0.7.dev0"})");
  }
  return lines;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& l : lines) out << l << '\n';
}

}  // namespace tensorperf::testing
