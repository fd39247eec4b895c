# `anygpu doctor`: the ELF dynamic-section reader and the ld.so.cache parser.
set(ANYGPU_DOCTOR_FUZZ_TARGETS elf ld_cache)
