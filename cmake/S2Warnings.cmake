# s2_warnings(target): the project's warning set, applied to every target we build.
function(s2_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  if(S2_SANITIZE)
    # GCC 12 reports false maybe-uninitialized warnings inside std::variant when ASan
    # instruments it; the plain build keeps the warning.
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
  if(S2_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    # At -O3 (Release) GCC 12's flow-based warnings fire on code inlined from system headers
    # (protobuf's RepeatedField, std::vector's copy from an initializer list, std::string's
    # destructor on an exception path of a default-constructed BackendOptions): still
    # reported, not fatal, so the optimised build the benchmarks want builds with S2_WERROR too.
    target_compile_options(${target} PRIVATE
      $<$<CONFIG:Release>:-Wno-error=null-dereference -Wno-error=nonnull
                          -Wno-error=maybe-uninitialized>)
  endif()
endfunction()
