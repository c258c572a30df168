# supportd_options: compile flags for supportd's own targets (never applied to llama.cpp).
add_library(supportd_options INTERFACE)
target_compile_options(supportd_options INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(SUPPORTD_WERROR)
  target_compile_options(supportd_options INTERFACE -Werror)
endif()
# Boost.Asio: use std::coroutine support and avoid deprecated interfaces.
target_compile_definitions(supportd_options INTERFACE BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
if(SUPPORTD_SANITIZE)
  # The ASan + UBSan tree (docs/testing.md, "How long it takes"). At -O1, the level ASan's
  # documentation suggests, and without four UBSan checks that other checks cover: null and
  # object-size (ASan reports a null dereference and an out-of-bounds access itself), alignment
  # and vptr (kept, with every other check, by the fuzz tree's clang for the parsers). Measured
  # on http/connection.cpp, Asio coroutines for two streams: 335 s at -O3 with every check,
  # 231 s at -O1, 121 s at -O1 without the four; a test file 21.6 s, 17.8 s, 10.5 s.
  target_compile_options(supportd_options INTERFACE -O1 -fsanitize=address,undefined
                                                    -fno-sanitize=null,object-size,alignment,vptr
                                                    -fno-omit-frame-pointer
                                                    -fno-sanitize-recover=undefined)
  target_link_options(supportd_options INTERFACE -fsanitize=address,undefined)
  # GCC 12 reports false maybe-uninitialized warnings inside Boost.Beast when sanitizing, and at
  # -O1 a false mismatched-new-delete on Asio's coroutine frames (its own matched pair;
  # https://gcc.gnu.org/bugzilla/show_bug.cgi?id=109224, as in the TSan tree).
  target_compile_options(supportd_options INTERFACE -Wno-maybe-uninitialized
                                                    -Wno-mismatched-new-delete)
endif()
if(SUPPORTD_SANITIZE_THREAD)  # cmake/thread_sanitizer.cmake
  target_compile_options(supportd_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer -g)
  # GCC 12 warns that TSan does not support atomic_thread_fence (used inside Boost.Asio).
  target_compile_options(supportd_options INTERFACE -Wno-tsan)
endif()
