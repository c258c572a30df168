# The ThreadSanitizer tree (`make test-tsan`, build-tsan, docs/testing.md "Races"): supportd's
# own code and its tests are compiled with -fsanitize=thread (cmake/warnings.cmake, through
# supportd_options); llama.cpp and ggml are not. Instrumenting them would add their ~280
# compilation units to a cold CI run (an attempt built 48 of them in 20 minutes here) for
# threads supportd never shares data with: the engine thread calls llama_decode and reads its
# results after it returns, and ggml's workers live inside that call. Left uninstrumented, they
# compile exactly as in the normal tree, so ccache serves them. ggml runs on its own threadpool
# here: OpenMP is forced off because Debian's libgomp is not instrumented either and TSan
# cannot see its barriers.
# Only the test executables that run several threads are built (target tsan_tests, ctest
# label tsan: SUPPORTD_TSAN_TESTS in tests/CMakeLists.txt).
option(SUPPORTD_SANITIZE_THREAD "Build supportd's own code and tests with ThreadSanitizer" OFF)
if(SUPPORTD_SANITIZE_THREAD)
  if(SUPPORTD_SANITIZE)
    message(FATAL_ERROR "SUPPORTD_SANITIZE_THREAD and SUPPORTD_SANITIZE (ASan) cannot be combined")
  endif()
  set(SUPPORTD_GGML_OPENMP OFF CACHE BOOL "" FORCE)
  # Every executable (tests, supportd) links the TSan runtime.
  string(APPEND CMAKE_EXE_LINKER_FLAGS " -fsanitize=thread")
endif()
