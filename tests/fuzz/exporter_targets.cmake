# `anygpu exporter`: the HTTP/1.1 request-head parser, fed by untrusted network clients, and the
# job journal read back from disk (by the exporter after a restart, and by `anygpu report`).
set(ANYGPU_EXPORTER_FUZZ_TARGETS http_request job_journal)
