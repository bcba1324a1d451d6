// SPDX-License-Identifier: MIT
// Test workload: 8 threads each make a known number of stat-family calls at once.
// Usage: stat_threads DIR ROUNDS  ->  per round and thread: stat DIR (ok), stat DIR/missing-T
// (ENOENT), access DIR (ok), lstat DIR/missing-T/x (ENOENT).
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3)
    return 2;
  std::string dir = argv[1];
  int rounds = std::stoi(argv[2]);
  constexpr int k_threads = 8;
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, nullptr, k_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&, t] {
      std::string missing = dir + "/missing-" + std::to_string(t);
      std::string deeper = missing + "/x";
      pthread_barrier_wait(&barrier);
      struct stat st;
      for (int i = 0; i < rounds; ++i) {
        stat(dir.c_str(), &st);
        stat(missing.c_str(), &st);
        access(dir.c_str(), F_OK);
        lstat(deeper.c_str(), &st);
      }
    });
  for (auto& thread : threads)
    thread.join();
  pthread_barrier_destroy(&barrier);
  return 0;
}
