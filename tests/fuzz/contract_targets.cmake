# `anygpu check`: the runtime-spec.yaml parser and the PEP 440 specifier parser.
set(ANYGPU_CONTRACT_FUZZ_TARGETS runtime_spec pep440)
