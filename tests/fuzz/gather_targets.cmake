# `anygpu gather --redact`: the per-file identifier rules, PCI config space and the kernel log.
set(ANYGPU_GATHER_FUZZ_TARGETS gather_redact)
