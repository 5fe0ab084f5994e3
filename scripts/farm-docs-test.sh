#!/usr/bin/env bash
# Keeps docs/farm.md honest: the Slurm script and the Kubernetes manifest it
# shows are the files in docs/farm/, and the manifest is valid YAML with the
# fields an Indexed Job needs. Usage: scripts/farm-docs-test.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
doc="$root/docs/farm.md"
fail() { echo "farm-docs-test: FAIL: $*" >&2; exit 1; }
. "$root/scripts/skip.sh"
/usr/bin/python3 -c "import yaml" 2>/dev/null || skip "python3-yaml is not installed (scripts/build.sh --tests installs it)"
for f in render.sbatch k8s-indexed-job.yaml; do
  python=/usr/bin/python3
  "$python" - "$doc" "$root/docs/farm/$f" <<'PY' || fail "docs/farm.md does not show docs/farm/$f verbatim"
import sys
doc, part = open(sys.argv[1]).read(), open(sys.argv[2]).read()
sys.exit(0 if part in doc else 1)
PY
done
/usr/bin/python3 - "$root/docs/farm/k8s-indexed-job.yaml" <<'PY' || fail "the Kubernetes manifest is not a valid Indexed Job"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job", "not a batch/v1 Job"
spec = job["spec"]
assert spec["completionMode"] == "Indexed", "completionMode is not Indexed"
n = spec["completions"]
assert isinstance(n, int) and n >= 1 and spec["parallelism"] >= 1
pod = spec["template"]["spec"]
assert pod["restartPolicy"] in ("Never", "OnFailure")
args = " ".join(pod["containers"][0]["args"])
assert "$JOB_COMPLETION_INDEX" in args, "the pod does not use JOB_COMPLETION_INDEX"
assert f"--chunk-count {n}" in args, "--chunk-count does not match completions"
assert "--skip-existing" in args
print("k8s manifest ok:", n, "indexed completions")
PY
echo "1 passed, 0 failed"
