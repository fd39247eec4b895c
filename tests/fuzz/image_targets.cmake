# `anygpu image check`: a layer or save archive as the tar reader reads it (plain, gzip or zstd), and
# the GPU code-object scanner (.nv_fatbin containers, offload bundles, CCOB) over a library, and
# an image reference in the form Docker's store keys it by, and the forward-compatibility ELF
# note of a cuda-compat libcuda.so, and an entry of the cache of what images hold.
set(ANYGPU_IMAGE_FUZZ_TARGETS image_tar code_objects docker_ref compat_note image_facts)
