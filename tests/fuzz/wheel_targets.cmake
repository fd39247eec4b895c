# `anygpu wheel`: the wheel table parser (data/wheels.yaml, --data FILE, ANYGPU_WHEELS).
set(ANYGPU_WHEEL_FUZZ_TARGETS wheel_data)
