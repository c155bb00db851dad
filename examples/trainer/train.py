"""A stand-in training script: xpk copies this directory to /app in the workload's image."""

import os

print(f"Hello from worker {os.environ.get('TPU_WORKER_ID', '0')}: training would start here.")
