# Sourced by the test scripts: `skip REASON` ends a test whose requirement this
# machine lacks with exit 77, which CTest reports as skipped (SKIP_RETURN_CODE
# in tests/CMakeLists.txt). Under CI=true, where scripts/build.sh --tests has
# installed every requirement, a skip would hide a gap: it fails instead.
skip() {
  if [ "${CI:-}" = true ]; then
    echo "$(basename "$0"): FAIL: required under CI=true: $*" >&2
    exit 1
  fi
  echo "$(basename "$0"): SKIP: $*"
  exit 77
}
