# The sysfs/hwmon value parser behind `anygpu metrics`.
set(ANYGPU_METRICS_FUZZ_TARGETS metrics_sysfs_value)
