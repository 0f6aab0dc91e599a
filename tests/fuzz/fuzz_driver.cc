// An in-tree mutation fuzzer for the targets of fuzz_targets.h. Mutations: bit flips, byte changes
// to boundary values, inserted and deleted ranges, duplicated ranges, dictionary tokens, splices of
// two corpus entries. Without coverage feedback it keeps an input when its target reports a
// signature (status and message start) not seen before, so the corpus grows toward new behaviour.
// A crash or a broken invariant aborts the process: under `make test` that fails the test, and the
// input that did it is written first to fuzz-crash-<target>.bin in the working directory.
//
//   tensorperf_fuzz --target line --seconds 60 [--runs N] [--seed S] [--max-len 4096]
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "fuzz_targets.h"

namespace {

std::string g_current;  // the input being run, written out if it crashes the process
std::string g_target;

extern "C" void on_crash(int sig) {
  std::string path = "fuzz-crash-" + g_target + ".bin";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(g_current.data(), 1, g_current.size(), f);
    std::fclose(f);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

class Mutator {
 public:
  Mutator(uint64_t seed, const std::vector<std::string>& dict, size_t max_len) : rng_(seed), dict_(dict), max_(max_len) {}

  std::string mutate(std::string s, const std::vector<std::string>& corpus) {
    const int steps = 1 + static_cast<int>(rng_() % 4);
    for (int i = 0; i < steps; ++i) step(s, corpus);
    if (s.size() > max_) s.resize(max_);
    return s;
  }

 private:
  size_t pick(size_t n) { return n == 0 ? 0 : rng_() % n; }

  void step(std::string& s, const std::vector<std::string>& corpus) {
    static const unsigned char kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '"', '\\', '{', '}', '\n', '\r', '%', '@'};
    switch (rng_() % 8) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng_() % 8));
        break;
      case 1:  // a boundary byte
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(kInteresting[pick(sizeof(kInteresting))]);
        break;
      case 2: {  // delete a range
        if (s.empty()) break;
        size_t at = pick(s.size()), n = 1 + pick(std::min<size_t>(s.size() - at, 16));
        s.erase(at, n);
        break;
      }
      case 3: {  // insert random bytes
        size_t at = pick(s.size() + 1), n = 1 + pick(8);
        std::string bytes;
        for (size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>(rng_()));
        s.insert(at, bytes);
        break;
      }
      case 4: {  // duplicate a range
        if (s.empty()) break;
        size_t at = pick(s.size()), n = 1 + pick(std::min<size_t>(s.size() - at, 64));
        s.insert(pick(s.size() + 1), s.substr(at, n));
        break;
      }
      case 5:  // a dictionary token
        if (!dict_.empty()) s.insert(pick(s.size() + 1), dict_[pick(dict_.size())]);
        break;
      case 6: {  // splice with another corpus entry
        const std::string& other = corpus[pick(corpus.size())];
        size_t cut = pick(s.size() + 1), from = pick(other.size() + 1);
        s = s.substr(0, cut) + other.substr(from);
        break;
      }
      case 7: {  // overwrite a number-like run with a boundary number
        static const char* kNumbers[] = {"0", "-1", "4294967296", "9223372036854775807", "1e400", "-0", "2147483648"};
        size_t at = pick(s.size() + 1);
        s.insert(at, kNumbers[pick(std::size(kNumbers))]);
        break;
      }
    }
  }

  std::mt19937_64 rng_;
  const std::vector<std::string>& dict_;
  size_t max_;
};

int usage() {
  std::fprintf(stderr, "usage: tensorperf_fuzz --target onnx|line|url [--seconds S] [--runs N] [--seed S] [--max-len N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string target;
  double seconds = 10;
  long long runs = -1;
  uint64_t seed = 1;
  size_t max_len = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--target") target = value();
    else if (a == "--seconds") seconds = std::atof(value().c_str());
    else if (a == "--runs") runs = std::atoll(value().c_str());
    else if (a == "--seed") seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--max-len") max_len = std::strtoull(value().c_str(), nullptr, 10);
    else return usage();
  }
  const tensorperf::fuzz::Target* t = nullptr;
  for (const auto& candidate : tensorperf::fuzz::targets())
    if (candidate.name == target) t = &candidate;
  if (t == nullptr) return usage();
  g_target = target;
  for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_crash);

  std::vector<std::string> corpus = t->seeds;
  if (corpus.empty()) corpus.push_back("");
  if (max_len == 0) {
    for (const auto& s : corpus) max_len = std::max(max_len, s.size());
    max_len = std::max<size_t>(2 * max_len, 256);
  }
  std::unordered_set<std::string> seen;
  for (const auto& s : corpus) {
    g_current = s;
    seen.insert(t->run(s));
  }
  Mutator mutator(seed, t->dictionary, max_len);
  std::mt19937_64 pick(seed ^ 0x9e3779b97f4a7c15ull);
  const auto start = std::chrono::steady_clock::now();
  long long executions = 0;
  while (runs < 0 || executions < runs) {
    if ((executions & 255) == 0 && runs < 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds)
      break;
    g_current = mutator.mutate(corpus[pick() % corpus.size()], corpus);
    std::string sig = t->run(g_current);
    ++executions;
    if (seen.insert(sig).second && corpus.size() < 4096) corpus.push_back(g_current);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fuzz %s: %lld executions in %.1f s (%.0f/s), 0 crashes, %zu behaviours, corpus %zu\n", target.c_str(),
              executions, elapsed, executions / std::max(elapsed, 1e-9), seen.size(), corpus.size());
  return 0;
}
