/* anygpu C ABI: stable, dependency-free, callable from any language (ctypes, cffi, Go, Rust).
 *
 * Every function returning char* returns a NUL-terminated UTF-8 JSON document allocated by
 * the library; release it with anygpu_free(). On failure the document is
 *   {"schema": "anygpu.error/v1", "error": "<message>", "exit_code": <n>}
 * so callers always get a message, never NULL (except when memory is exhausted).
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
 * Returns the anygpu.inventory/v1 document. */
ANYGPU_API char* anygpu_detect_json(const char* options_json);

/* Releases a document returned by this library. NULL is ignored. */
ANYGPU_API void anygpu_free(char* document);

/* The library version, e.g. "0.1.0". Static storage: do not free. */
ANYGPU_API const char* anygpu_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ANYGPU_H */
