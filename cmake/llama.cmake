# llama.cpp + ggml, built static from the source tree that scripts/setup.sh fetched from the
# npm package node-llama-cpp. Only libllama and the CPU backend; nothing is downloaded.
if(NOT EXISTS ${SUPPORTD_LLAMA_DIR}/CMakeLists.txt)
  message(FATAL_ERROR "llama.cpp source not found at ${SUPPORTD_LLAMA_DIR}: run scripts/setup.sh "
                      "(or `make build`), or pass -DSUPPORTD_LLAMA_SOURCE_DIR=...")
endif()

set(BUILD_SHARED_LIBS OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TOOLS OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_EXAMPLES OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_SERVER OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_APP OFF CACHE BOOL "" FORCE)
set(LLAMA_USE_PREBUILT_UI OFF CACHE BOOL "" FORCE)
set(LLAMA_OPENSSL OFF CACHE BOOL "" FORCE)
set(LLAMA_ALL_WARNINGS OFF CACHE BOOL "" FORCE)
set(GGML_BLAS OFF CACHE BOOL "" FORCE)
set(GGML_NATIVE ON CACHE BOOL "")
# Threading, chosen by measurement (docs/performance.md, "Engine threading"):
set(GGML_OPENMP ${SUPPORTD_GGML_OPENMP} CACHE BOOL "" FORCE)

add_subdirectory(${SUPPORTD_LLAMA_DIR} ${CMAKE_BINARY_DIR}/llama.cpp EXCLUDE_FROM_ALL SYSTEM)
