// SPDX-License-Identifier: MIT
// Test workload: THREADS threads, started together, each stat PATH STATS times. Then the
// process exits 0, or with "kill" the threads go on statting PATH-spin without end while the
// main thread kills the whole process with SIGKILL.
// Usage: thread_stats THREADS STATS PATH [kill]
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int stats;
static const char* path;
static char spin_path[4096];
static int spin;
static pthread_barrier_t start, counted;

static void* worker(void* arg) {
  (void)arg;
  struct stat st;
  pthread_barrier_wait(&start);
  for (int i = 0; i < stats; ++i)
    stat(path, &st);
  pthread_barrier_wait(&counted);
  while (spin)
    stat(spin_path, &st);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5)
    return 2;
  int threads = atoi(argv[1]);
  stats = atoi(argv[2]);
  path = argv[3];
  spin = argc == 5 && strcmp(argv[4], "kill") == 0;
  snprintf(spin_path, sizeof spin_path, "%s-spin", path);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  pthread_barrier_init(&counted, NULL, (unsigned)threads + 1);
  pthread_t* ids = calloc((size_t)threads, sizeof *ids);
  for (int t = 0; t < threads; ++t)
    if (pthread_create(&ids[t], NULL, worker, NULL) != 0)
      return 1;
  pthread_barrier_wait(&counted);
  if (spin)
    kill(getpid(), SIGKILL);
  for (int t = 0; t < threads; ++t)
    pthread_join(ids[t], NULL);
  free(ids);
  return 0;
}
