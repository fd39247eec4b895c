/* anygpu C ABI: stable, dependency-free, callable from any language (ctypes, cffi, Go, Rust).
 *
 * Every function returning char* returns a NUL-terminated UTF-8 JSON document allocated by
 * the library; release it with anygpu_free(). On failure the document is
 *   {"schema": "anygpu.error/v1", "error": "<message>", "exit_code": <n>, "warnings": [...]}
 * so callers always get a message, never NULL (except when memory is exhausted).
 * Every document has "warnings": strings "WHERE: MESSAGE" naming what discovery went on without
 * (a malformed sysfs value, a vendor library that failed); the library never prints them.
 */
#ifndef ANYGPU_H
#define ANYGPU_H

#if defined(__GNUC__)
#define ANYGPU_API __attribute__((visibility("default")))
#else
#define ANYGPU_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* options_json: NULL or a JSON object with optional keys
 *   "root"           (string)  read the host beneath this directory (like --root)
 *   "no_libs"        (bool)    never load vendor libraries (like --no-libs)
 *   "lib_timeout_ms" (integer) deadline for vendor library calls
 * Keys that are absent fall back to ANYGPU_ROOT, ANYGPU_NO_LIBS and ANYGPU_LIB_TIMEOUT_MS.
 * Validated exactly as the CLI validates --root, --no-libs and --lib-timeout (one shared
 * function): an empty root or one that is not a directory, a timeout outside 1..600000, an
 * ANYGPU_NO_LIBS other than 1/0/true/false/yes/no, an unknown key or a wrong type give the
 * error document with exit_code 2.
 * Returns the anygpu.inventory/v1 document. */
ANYGPU_API char* anygpu_detect_json(const char* options_json);

/* options_json: as for anygpu_detect_json, plus optional keys
 *   "config"         (string)  accelerator-config.yaml to apply; absent: ./accelerator-config.yaml
 *                              when it exists, else backend auto
 *   "nproc_per_node" (integer) processes sharing the devices; absent: LOCAL_WORLD_SIZE, else one
 *                              per chosen device
 *   "python"         (string)  interpreter whose packages the runtime contract checks
 * Checks the config's runtime_contract first (a failure is an error document with exit_code 1),
 * then returns the anygpu.selection/v1 document:
 *   {"schema": "anygpu.selection/v1", "vendor", "backend", "devices": [bus ids], "env": {…}}
 * An explicit backend that matches nothing, or a devices list / caller visible-devices variable
 * naming devices the host lacks, is an error document with exit_code 3. The caller's
 * environment is read as `anygpu select` reads it; the document's "unset" lists variables the
 * caller must remove (present only when non-empty). */
ANYGPU_API char* anygpu_select_json(const char* options_json);

/* Releases a document returned by this library. NULL is ignored. */
ANYGPU_API void anygpu_free(char* document);

/* The library version, e.g. "0.1.0". Static storage: do not free. */
ANYGPU_API const char* anygpu_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ANYGPU_H */
