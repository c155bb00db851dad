#!/usr/bin/env bash
# The README's main job: an offline dry run of creating a 4-slice TPU cluster and submitting a workload to it.
# Nothing is created and no network call is made; the plan and the JobSet that would be submitted are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
xpk() { node -- bin/run.js "$@"; }

echo '$ xpk cluster create --project demo-project --zone us-central2-b --cluster demo --tpu-type v5litepod-16 --num-slices 4 --spot --dry-run --offline'
xpk cluster create --project demo-project --zone us-central2-b --cluster demo \
  --tpu-type v5litepod-16 --num-slices 4 --spot --dry-run --offline
echo
echo '$ xpk workload create --project demo-project --cluster demo --workload hello-1 --tpu-type v5litepod-16 --num-slices 4 --priority high --script-dir examples/trainer --command "python3 train.py" --dry-run --offline'
xpk workload create --project demo-project --cluster demo --workload hello-1 \
  --tpu-type v5litepod-16 --num-slices 4 --priority high \
  --script-dir examples/trainer --command 'python3 train.py' --dry-run --offline
