#!/usr/bin/env bash
# The public API of each library crate, held against a committed baseline (`api/<crate>.txt`):
# a change to what embedders can name is a deliberate diff, blessed with `api/check.sh --bless`.
#
# Each baseline is the listing `cargo public-api` prints (blanket impls left out) from the
# crate's rustdoc JSON, built with the default features: what a runtime or client author
# builds, never `test-support` or `fuzzing`. The rustdoc JSON comes from the active (stable)
# toolchain with RUSTC_BOOTSTRAP=1, so CI needs no nightly; a nightly is used instead when the
# stable rustdoc writes a JSON format the pinned tool does not read. When neither fits, or the
# tool cannot be installed, the check says so and is skipped: it never fails for a missing tool.
#
#   api/check.sh           regenerate each listing and diff it against the baseline
#   api/check.sh --bless   regenerate and overwrite the baselines (commit the diff)
#
# DEVINT_API_INSTALL=0 leaves cargo-public-api uninstalled when it is missing (skip instead).
set -euo pipefail
cd "$(dirname "$0")/.."

# cargo-public-api 0.52.x reads rustdoc JSON format 57 (rustdoc-types 0.57). Moving the pin
# means moving both numbers, and re-blessing if the new version prints items differently.
TOOL_VERSION=0.52.0
FORMAT=57
CRATES=(devint devint-fs devint-net devint-runtime devint-sidecar)

bless=false
case "${1:-}" in
  --bless) bless=true ;;
  "") ;;
  *) echo "usage: api/check.sh [--bless]" >&2; exit 2 ;;
esac

skip() { echo "SKIPPING the public API check: $*"; exit 0; }

# The rustdoc JSON format a toolchain writes, from a one-line crate (well under a second).
format_of() {
  local probe
  probe=$(mktemp -d)
  echo 'pub fn probe() {}' >"$probe/lib.rs"
  if RUSTC_BOOTSTRAP=1 rustdoc "$@" -Z unstable-options --output-format json --crate-name probe \
    "$probe/lib.rs" -o "$probe/out" 2>/dev/null; then
    sed -n 's/.*"format_version":\([0-9]*\).*/\1/p' "$probe/out/probe.json"
  fi
  rm -rf "$probe"
}

toolchain=()
stable_format=$(format_of)
if [ "$stable_format" = "$FORMAT" ]; then
  echo "rustdoc JSON from $(rustdoc --version) with RUSTC_BOOTSTRAP=1 (format $FORMAT)"
elif rustup toolchain list 2>/dev/null | grep -q '^nightly' && [ "$(format_of +nightly)" = "$FORMAT" ]; then
  toolchain=(+nightly)
  echo "rustdoc JSON from $(rustdoc +nightly --version) (format $FORMAT)"
else
  skip "no toolchain here writes rustdoc JSON format $FORMAT, the one cargo-public-api" \
    "$TOOL_VERSION reads (the active rustdoc writes format ${stable_format:-none});" \
    "move the pin in api/check.sh to a release that reads it"
fi

if ! command -v cargo-public-api >/dev/null 2>&1 ||
  [ "$(cargo-public-api --version 2>/dev/null)" != "cargo-public-api $TOOL_VERSION" ]; then
  if [ "${DEVINT_API_INSTALL:-1}" = 0 ]; then
    skip "cargo-public-api $TOOL_VERSION is not installed (DEVINT_API_INSTALL=0);" \
      "install it with: cargo install cargo-public-api --locked --version $TOOL_VERSION"
  fi
  echo "installing cargo-public-api $TOOL_VERSION from crates.io"
  # Its own build directory, so the workspace's target dir is not touched.
  (unset CARGO_TARGET_DIR && cargo install cargo-public-api --locked --quiet --version "$TOOL_VERSION") ||
    skip "cargo-public-api $TOOL_VERSION could not be installed"
fi

# Where cargo puts the JSON (CARGO_TARGET_DIR or a configured target-dir is honoured).
target_dir=$(cargo metadata --no-deps --format-version 1 | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
failed=()
for crate in "${CRATES[@]}"; do
  # Default features only; JSON rustdoc of the library, its dependencies merely checked.
  RUSTC_BOOTSTRAP=1 cargo "${toolchain[@]}" rustdoc --quiet -p "$crate" --lib -- \
    -Z unstable-options --output-format json
  json="$target_dir/doc/${crate//-/_}.json"
  listing=$(cargo-public-api --rustdoc-json "$json" --omit blanket-impls --color never)
  baseline="api/$crate.txt"
  if $bless; then
    printf '%s\n' "$listing" >"$baseline"
    echo "blessed $baseline ($(wc -l <"$baseline") items)"
  elif diff -u --label "$baseline (committed)" --label "$crate (this tree)" \
    "$baseline" <(printf '%s\n' "$listing"); then
    echo "$crate: public API matches $baseline"
  else
    failed+=("$crate")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo
  echo "The public API of ${failed[*]} differs from its committed baseline (diff above)."
  echo "If the change is deliberate, bless it and commit the baseline with the change:"
  echo "  api/check.sh --bless && git add api/"
  exit 1
fi
