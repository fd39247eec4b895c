# The vendor management libraries (NVML and the libraries that speak it, Level Zero Sysman, DCMI,
# ROCm SMI): each one's ABI declarations, probe, health reader and sampler in its own folder.
set(ANYGPU_VENDORLIB_SOURCES
)
