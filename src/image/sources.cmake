# Reading a container image without a daemon and without running it: docker/podman save
# archives, OCI layouts and images in the local containers-storage, their layers (tar, tar+gzip) with whiteouts and digests, and the GPU
# code objects of the shared libraries inside. No judgement here (src/imagefit/).
set(ANYGPU_IMAGE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/byte_source.cc
  ${CMAKE_CURRENT_LIST_DIR}/code_objects.cc
  ${CMAKE_CURRENT_LIST_DIR}/compat_note.cc
  ${CMAKE_CURRENT_LIST_DIR}/facts_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/image_read.cc
  ${CMAKE_CURRENT_LIST_DIR}/image_store.cc
  ${CMAKE_CURRENT_LIST_DIR}/store_layer.cc
  ${CMAKE_CURRENT_LIST_DIR}/docker_store.cc
  ${CMAKE_CURRENT_LIST_DIR}/tar_reader.cc
)
