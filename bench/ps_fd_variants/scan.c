// scan (bench/ps_fd_variants/run.sh): find holders of a target by walking /proc/PID/fd.  usage:
// scan VARIANT THREADS [outfile] VARIANT: A=readlinkat  B=fstatat  C=statx(TYPE|INO,DONT_SYNC)
// M=statx(mask 0)
//          P=pidfd_getfd+fstat  U=io_uring IORING_OP_STATX batched  O=O_PATH fd-dir (expected to
//          fail)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define TARGET "/tmp/psbench/devs/nvidia0"
struct dirent64 {
  unsigned long long d_ino;
  long long d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

static char variant;
static int nthreads;
static int procfd;
static int* pids;
static int npids;
static dev_t t_dev, t_rdev;
static ino_t t_ino;
static size_t t_len;
static int* holder;  // per pid index: 1 if holds target
static int* rdevhit;
struct tstat {
  long fds, errs;
};

static double busy_ms(void) {  // all-CPU non-idle time from /proc/stat
  FILE* f = fopen("/proc/stat", "r");
  unsigned long long v[10] = {0};
  fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
         &v[6], &v[7]);
  fclose(f);
  return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) * 1000.0 / sysconf(_SC_CLK_TCK);
}
static inline int isnum(const char* s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

static int list_pids(void) {
  int cap = 65536;
  pids = malloc(cap * sizeof(int));
  char buf[65536];
  long n;
  while ((n = syscall(SYS_getdents64, procfd, buf, sizeof buf)) > 0)
    for (long o = 0; o < n;) {
      struct dirent64* d = (void*)(buf + o);
      o += d->d_reclen;
      if (isnum(d->d_name)) pids[npids++] = atoi(d->d_name);
    }
  return npids;
}

static inline void check_stat(int pi, dev_t dev, ino_t ino, mode_t mode, dev_t rdev) {
  if (dev == t_dev && ino == t_ino) holder[pi] = 1;
  if (S_ISCHR(mode) && rdev == t_rdev) rdevhit[pi] = 1;
}

/* ---- io_uring raw ---- */
struct ring {
  int fd;
  unsigned *sq_head, *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
  struct io_uring_sqe* sqes;
  struct io_uring_cqe* cqes;
  unsigned entries;
};
static int ring_init(struct ring* r, unsigned entries) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  r->fd = syscall(SYS_io_uring_setup, entries, &p);
  if (r->fd < 0) return -1;
  size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  if (cqsz > sqsz) sqsz = cqsz;
  char* sq =
      mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
  char* cq = sq;  // assume IORING_FEAT_SINGLE_MMAP
  if (!(p.features & IORING_FEAT_SINGLE_MMAP)) return -1;
  r->sqes = mmap(0, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
  r->sq_head = (void*)(sq + p.sq_off.head);
  r->sq_tail = (void*)(sq + p.sq_off.tail);
  r->sq_mask = (void*)(sq + p.sq_off.ring_mask);
  r->sq_array = (void*)(sq + p.sq_off.array);
  r->cq_head = (void*)(cq + p.cq_off.head);
  r->cq_tail = (void*)(cq + p.cq_off.tail);
  r->cq_mask = (void*)(cq + p.cq_off.ring_mask);
  r->cqes = (void*)(cq + p.cq_off.cqes);
  r->entries = p.sq_entries;
  return 0;
}

#define UB 1024 /* statx requests per io_uring batch */
struct ureq {
  int pi, dfd;
  char name[16];
  struct statx stx;
};

static void* worker(void* arg) {
  long t = (long)arg;
  struct tstat* ts = calloc(1, sizeof *ts);
  char* buf = malloc(32768);
  char path[32], lnk[4096];
  struct ring r = {0};
  struct ureq* uq = NULL;
  int udirs[UB];
  int nu = 0, nd = 0;
  if (variant == 'U') {
    if (ring_init(&r, UB)) {
      perror("io_uring");
      exit(1);
    }
    uq = malloc(UB * sizeof *uq);
  }
  for (int pi = t; pi < npids + (variant == 'U' ? nthreads : 0); pi += nthreads) {
    if (variant == 'U') {
      /* flush a batch if the next pid could overflow it, or at end */
      if (nu > UB - 300 || pi >= npids) {
        if (nu) {
          unsigned tail = *r.sq_tail;
          for (int i = 0; i < nu; i++) {
            unsigned idx = (tail + i) & *r.sq_mask;
            struct io_uring_sqe* s = &r.sqes[idx];
            memset(s, 0, sizeof *s);
            s->opcode = IORING_OP_STATX;
            s->fd = uq[i].dfd;
            s->addr = (unsigned long)uq[i].name;
            s->len = STATX_TYPE | STATX_INO;
            s->statx_flags = AT_STATX_DONT_SYNC;
            s->off = (unsigned long)&uq[i].stx;
            s->user_data = i;
            r.sq_array[idx] = idx;
          }
          __atomic_store_n(r.sq_tail, tail + nu, __ATOMIC_RELEASE);
          int done = 0;
          while (done < nu) {
            int rc = syscall(SYS_io_uring_enter, r.fd, done == 0 ? nu : 0, nu - done,
                             IORING_ENTER_GETEVENTS, NULL, 0);
            if (rc < 0 && errno != EINTR) {
              perror("io_uring_enter");
              exit(1);
            }
            unsigned h = *r.cq_head, ct = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
            for (; h != ct; h++) {
              struct io_uring_cqe* c = &r.cqes[h & *r.cq_mask];
              struct ureq* q = &uq[c->user_data];
              if (c->res < 0)
                ts->errs++;
              else
                check_stat(q->pi, makedev(q->stx.stx_dev_major, q->stx.stx_dev_minor),
                           q->stx.stx_ino, q->stx.stx_mode,
                           makedev(q->stx.stx_rdev_major, q->stx.stx_rdev_minor));
              done++;
            }
            __atomic_store_n(r.cq_head, h, __ATOMIC_RELEASE);
          }
        }
        for (int i = 0; i < nd; i++) close(udirs[i]);
        nu = nd = 0;
      }
      if (pi >= npids) break;
    }
    snprintf(path, sizeof path, "%d/fd", pids[pi]);
    int dfd = openat(procfd, path, (variant == 'O' ? O_PATH : O_RDONLY) | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
      ts->errs++;
      continue;
    }
    int pidfd = -1;
    if (variant == 'P') {
      pidfd = syscall(SYS_pidfd_open, pids[pi], 0);
      if (pidfd < 0) {
        ts->errs++;
        close(dfd);
        continue;
      }
    }
    if (variant == 'U') udirs[nd++] = dfd;
    long n;
    while ((n = syscall(SYS_getdents64, dfd, buf, 32768)) > 0) {
      for (long o = 0; o < n;) {
        struct dirent64* d = (void*)(buf + o);
        o += d->d_reclen;
        if (d->d_name[0] == '.') continue;
        ts->fds++;
        switch (variant) {
          case 'A': {
            ssize_t l = readlinkat(dfd, d->d_name, lnk, sizeof lnk);
            if (l < 0) {
              ts->errs++;
              break;
            }
            if ((size_t)l == t_len && memcmp(lnk, TARGET, l) == 0) holder[pi] = 1;
            break;
          }
          case 'B': {
            struct stat st;
            if (fstatat(dfd, d->d_name, &st, 0)) {
              ts->errs++;
              break;
            }
            check_stat(pi, st.st_dev, st.st_ino, st.st_mode, st.st_rdev);
            break;
          }
          case 'C':
          case 'M': {
            struct statx sx;
            if (statx(dfd, d->d_name, AT_STATX_DONT_SYNC,
                      variant == 'C' ? (STATX_TYPE | STATX_INO) : 0, &sx)) {
              ts->errs++;
              break;
            }
            check_stat(pi, makedev(sx.stx_dev_major, sx.stx_dev_minor), sx.stx_ino, sx.stx_mode,
                       makedev(sx.stx_rdev_major, sx.stx_rdev_minor));
            break;
          }
          case 'P': {
            int nf = syscall(SYS_pidfd_getfd, pidfd, atoi(d->d_name), 0);
            struct stat st;
            if (nf < 0) {
              ts->errs++;
              break;
            }
            fstat(nf, &st);
            close(nf);
            check_stat(pi, st.st_dev, st.st_ino, st.st_mode, st.st_rdev);
            break;
          }
          case 'U': {
            if (nu >= UB) {
              ts->errs++;
              break;
            }
            struct ureq* q = &uq[nu++];
            q->pi = pi;
            q->dfd = dfd;
            strncpy(q->name, d->d_name, 15);
            q->name[15] = 0;
            break;
          }
        }
      }
    }
    if (n < 0) ts->errs++;
    if (pidfd >= 0) close(pidfd);
    if (variant != 'U') close(dfd);
  }
  return ts;
}

int main(int argc, char** argv) {
  variant = argv[1][0];
  nthreads = argc > 2 ? atoi(argv[2]) : 1;
  struct stat st;
  if (stat(TARGET, &st)) {
    perror(TARGET);
    return 1;
  }
  t_dev = st.st_dev;
  t_ino = st.st_ino;
  t_rdev = st.st_rdev;
  t_len = strlen(TARGET);
  struct rlimit rl = {65536, 65536};
  setrlimit(RLIMIT_NOFILE, &rl);
  struct timespec t0, t1;
  struct rusage r0, r1;
  double b0 = busy_ms();
  getrusage(RUSAGE_SELF, &r0);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  list_pids();
  holder = calloc(npids, sizeof(int));
  rdevhit = calloc(npids, sizeof(int));
  pthread_t th[64];
  long fds = 0, errs = 0;
  if (nthreads == 1) {
    struct tstat* ts = worker((void*)0);
    fds = ts->fds;
    errs = ts->errs;
  } else {
    for (long i = 0; i < nthreads; i++) pthread_create(&th[i], 0, worker, (void*)i);
    for (int i = 0; i < nthreads; i++) {
      struct tstat* ts;
      pthread_join(th[i], (void**)&ts);
      fds += ts->fds;
      errs += ts->errs;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  getrusage(RUSAGE_SELF, &r1);
  double b1 = busy_ms();
  int nh = 0, nr = 0;
  for (int i = 0; i < npids; i++) {
    nh += holder[i];
    nr += rdevhit[i];
  }
  double wall = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
  double us = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1e3 +
              (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1e3;
  double sy = (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e3 +
              (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e3;
  printf(
      "%c %d wall=%.2f user=%.2f sys=%.2f pids=%d fds=%ld errs=%ld holders=%d rdevhits=%d "
      "other=%.0f\n",
      variant, nthreads, wall, us, sy, npids, fds, errs, nh, nr, (b1 - b0) - us - sy);
  if (argc > 3) {
    FILE* f = fopen(argv[3], "w");
    for (int i = 0; i < npids; i++)
      if (holder[i]) fprintf(f, "%d\n", pids[i]);
    fclose(f);
  }
  return 0;
}
