/* fork() while other threads make their first C ABI calls: every child must still answer.
 *
 * 32 threads start anygpu_detect_json (and anygpu_select_json) at once in a fresh process, so
 * each one-time initialisation in the library (the built-in tables, the registry in force) is
 * being built by some thread; meanwhile the main thread forks 30 children, each of which calls
 * anygpu_detect_json itself. A child that inherited an initialisation "in progress" from a
 * thread that does not exist in it would wait for it forever. Every child must exit 0 within
 * the deadline; a child still running then is killed and counted.
 *
 * usage: fork_during_first_calls OPTIONS_JSON [ROUNDS]
 * Each round is a fresh process (re-executed), since only a process's first calls initialise. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "anygpu.h"

enum { kThreads = 32, kChildren = 30 };
static const double kDeadlineSeconds = 30.0;

static const char* g_options;
static pthread_barrier_t g_start;

static int is_error_document(const char* doc) {
  return !doc || strstr(doc, "\"anygpu.error/v1\"") != NULL;
}

static void* first_calls(void* arg) {
  int select_too = (int)(long)arg % 2;
  pthread_barrier_wait(&g_start);
  char* doc = anygpu_detect_json(g_options);
  anygpu_free(doc);
  if (select_too) {
    doc = anygpu_select_json(g_options);
    anygpu_free(doc);
  }
  return NULL;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for every child until the deadline; kills the rest. Returns how many never answered
 * (hung) and counts the ones that answered with an error or died (failed). */
static int reap(pid_t* pids, int n, int* failed) {
  int left = n, hung = 0;
  double deadline = now_seconds() + kDeadlineSeconds;
  while (left > 0 && now_seconds() < deadline) {
    for (int i = 0; i < n; ++i) {
      if (pids[i] <= 0) continue;
      int status = 0;
      pid_t r = waitpid(pids[i], &status, WNOHANG);
      if (r == 0) continue;
      if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++*failed;
      pids[i] = 0;
      --left;
    }
    struct timespec pause = {0, 5 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  for (int i = 0; i < n; ++i) {
    if (pids[i] <= 0) continue;
    kill(pids[i], SIGKILL);
    waitpid(pids[i], NULL, 0);
    ++hung;
  }
  return hung;
}

static int one_round(void) {
  pthread_t threads[kThreads];
  pid_t pids[kChildren];
  pthread_barrier_init(&g_start, NULL, kThreads + 1);
  for (long i = 0; i < kThreads; ++i)
    if (pthread_create(&threads[i], NULL, first_calls, (void*)i) != 0) {
      perror("pthread_create");
      return 2;
    }
  pthread_barrier_wait(&g_start);
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      return 2;
    }
    if (pid == 0) {
      char* doc = anygpu_detect_json(g_options);
      int bad = is_error_document(doc);
      if (bad) fprintf(stderr, "child %d: %s\n", (int)getpid(), doc ? doc : "(null)");
      anygpu_free(doc);
      _exit(bad ? 1 : 0);
    }
    pids[i] = pid;
    /* Spread the forks over the first calls: a few hundred microseconds apart. */
    struct timespec pause = {0, 300 * 1000};
    nanosleep(&pause, NULL);
  }
  int failed = 0, hung = reap(pids, kChildren, &failed);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  if (hung || failed) {
    fprintf(stderr, "%d of %d children never returned within %.0f s, %d failed\n", hung, kChildren,
            kDeadlineSeconds, failed);
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OPTIONS_JSON [ROUNDS]\n", argv[0]);
    return 2;
  }
  g_options = argv[1];
  int rounds = argc > 2 ? atoi(argv[2]) : 1;
  if (rounds <= 1) return one_round();
  /* Each round in a fresh process: the library's first calls happen once per process. */
  for (int r = 0; r < rounds; ++r) {
    pid_t pid = fork();
    if (pid == 0) {
      execl("/proc/self/exe", argv[0], argv[1], (char*)NULL);
      _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "round %d of %d failed\n", r + 1, rounds);
      return 1;
    }
  }
  printf("%d rounds: every child returned\n", rounds);
  return 0;
}
