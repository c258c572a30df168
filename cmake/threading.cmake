# How ggml's CPU backend runs its worker threads. Decided by measurement on 2 cores with a busy
# core beside the engine (bench/decode-beside-hog, docs/performance.md "Engine threading").
set(SUPPORTD_GGML_OPENMP_DEFAULT OFF)
option(SUPPORTD_GGML_OPENMP "Build ggml with OpenMP (else ggml's own threadpool)"
       ${SUPPORTD_GGML_OPENMP_DEFAULT})
