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
 * unknown key or a wrong type give the error document with exit_code 2; so does any variable
 * that steers anygpu holding a value the CLI refuses (see anygpu_environment_json).
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

/* The environment variables anygpu reads, and the verdict on their values: the same table and
 * parsers the CLI uses, so a caller (the Python package) accepts exactly what the CLI accepts.
 * options_json: NULL or a JSON object with optional keys
 *   "environment" (object of strings) judge these values instead of this process's environment
 *                 (a variable absent from it counts as unset)
 *   "names"       (array of strings) only these variables (one anygpu does not read: exit_code 2)
 * Returns {"schema": "anygpu.environment/v1", "variables": [{"name", "kind", "readers": ["cli",
 * "c-abi", "python"], "steers", "accepted", "meaning" ("min"/"max" for integers, "words" for
 * keywords), "set", and when set "value" and either "error"
 * (the message the CLI prints) or the parsed "number" / "flag" / "first" (a hostlist's first
 * host)}]}. Variables that "steer" are checked by every anygpu_detect_json and
 * anygpu_select_json call, as by every CLI start: a refusal is the error document with
 * exit_code 2 and "variable" naming it. A registry override (ANYGPU_REGISTRY) that does not
 * load is that error document for every call, this one included. */
ANYGPU_API char* anygpu_environment_json(const char* options_json);

/* Releases a document returned by this library. NULL is ignored. */
ANYGPU_API void anygpu_free(char* document);

/* The library version, e.g. "0.1.0". Static storage: do not free. */
ANYGPU_API const char* anygpu_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ANYGPU_H */
