# `anygpu exporter`: the HTTP/1.1 request-head parser, fed by untrusted network clients.
set(ANYGPU_EXPORTER_FUZZ_TARGETS http_request)
