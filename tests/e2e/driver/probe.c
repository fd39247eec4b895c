/* The in-container probe: dlopen a vendor library by soname, the way a framework does, call
 * its entry point and print the answer. Exit 0 only when the call answered. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: probe SONAME FUNCTION\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "probe: %s\n", dlerror());
    return 1;
  }
  int (*entry)(int *) = (int (*)(int *))dlsym(lib, argv[2]);
  if (!entry) {
    fprintf(stderr, "probe: %s\n", dlerror());
    return 1;
  }
  int answer = -1;
  int rc = entry(&answer);
  printf("%s %s -> %d answer %d\n", argv[1], argv[2], rc, answer);
  return rc == 0 ? 0 : 1;
}
