#!/bin/sh
# The C and C++ compiler under every name a notebook may call it by (clang++, g++, c++, clang,
# cc, and their /usr/bin paths: the Dockerfile points them here). Outside a grading it is the
# compiler itself; in a grading, whose witness sets JAX_INTEROP_COMPILE_LOG, every run is
# recorded as it happens (autograder/witness/compile_record.py) for the grader to build again.
case "${0##*/}" in
  *++*) real=@CLANG@++ ;;
  *)    real=@CLANG@ ;;
esac
[ -n "$JAX_INTEROP_COMPILE_LOG" ] || exec "$real" "$@"
exec @PYTHON@ -I -m autograder.witness.compile_record "$real" "$@"
