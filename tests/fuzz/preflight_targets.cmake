# `anygpu preflight`: the rank-N.json each launched process writes.
set(ANYGPU_PREFLIGHT_FUZZ_TARGETS preflight_result)
