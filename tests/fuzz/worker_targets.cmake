# The worker message format: what a vendor-library worker (possibly corrupted by the library it
# hosts) sends its parent, and the requests the worker reads; the metrics worker's messages.
set(ANYGPU_WORKER_FUZZ_TARGETS worker_message worker_sample)
