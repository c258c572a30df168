# supportd_options: compile flags for supportd's own targets (never applied to llama.cpp).
add_library(supportd_options INTERFACE)
target_compile_options(supportd_options INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(SUPPORTD_WERROR)
  target_compile_options(supportd_options INTERFACE -Werror)
endif()
# Boost.Asio: use std::coroutine support and avoid deprecated interfaces.
target_compile_definitions(supportd_options INTERFACE BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)
if(SUPPORTD_SANITIZE)
  target_compile_options(supportd_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                    -fno-sanitize-recover=undefined)
  target_link_options(supportd_options INTERFACE -fsanitize=address,undefined)
  # GCC 12 reports false maybe-uninitialized warnings inside Boost.Beast when sanitizing.
  target_compile_options(supportd_options INTERFACE -Wno-maybe-uninitialized)
endif()
if(SUPPORTD_SANITIZE_THREAD)  # cmake/thread_sanitizer.cmake
  target_compile_options(supportd_options INTERFACE -fsanitize=thread -fno-omit-frame-pointer -g)
  # GCC 12 warns that TSan does not support atomic_thread_fence (used inside Boost.Asio).
  target_compile_options(supportd_options INTERFACE -Wno-tsan)
endif()
