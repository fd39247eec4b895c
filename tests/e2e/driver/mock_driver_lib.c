/* A stand-in for one vendor user-space driver library, built by the driver tests with the
 * vendor's soname and versioned file name: one entry point named like the vendor's
 * (-DENTRY=cuDriverGetVersion) that writes a known answer (-DANSWER=12040) and returns 0. */
#ifndef ENTRY
#error "build with -DENTRY=<vendor function> -DANSWER=<number>"
#endif
__attribute__((visibility("default"))) int ENTRY(int *out) {
  if (!out) return 1;
  *out = ANSWER;
  return 0;
}
