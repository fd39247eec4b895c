// psholder: fork N children each holding ~50 fds; even-indexed children also hold devs/nvidia0.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  char p[256];
  struct stat st;
  stat("/dev/null", &st);
  unlink("/tmp/psbench/devs/nvidia0");
  if (mknod("/tmp/psbench/devs/nvidia0", S_IFCHR | 0666, st.st_rdev)) {
    perror("mknod");
    return 1;
  }
  for (int i = 0; i < 10; i++) {
    snprintf(p, sizeof p, "/tmp/psbench/devs/reg%d", i);
    close(open(p, O_CREAT | O_WRONLY, 0644));
  }
  struct rlimit rl = {4096, 4096};
  setrlimit(RLIMIT_NOFILE, &rl);
  FILE* pf = fopen("/tmp/psbench/holder.pids", "w");
  int expect = 0;
  for (int i = 0; i < n; i++) {
    pid_t c = fork();
    if (c < 0) {
      perror("fork");
      break;
    }
    if (c == 0) {
      int dn = open("/dev/null", O_RDWR);
      int k = 1;
      if (i % 2 == 0) {
        if (open("/tmp/psbench/devs/nvidia0", O_RDWR) < 0) _exit(1);
        k++;
      }
      for (int j = 0; j < 10; j++, k++) {
        snprintf(p, sizeof p, "/tmp/psbench/devs/reg%d", j);
        open(p, O_RDONLY);
      }
      while (k < 50) {
        dup(dn);
        k++;
      }
      for (;;) pause();
    }
    fprintf(pf, "%d %d\n", c, i % 2 == 0);
    expect += (i % 2 == 0);
  }
  fclose(pf);
  printf("forked %d holders, %d hold nvidia0\n", n, expect);
  fflush(stdout);
  for (;;) pause();
}
