/**
 * The startup script of a detached TPU VM job (`xpk vm job create --detach`): it runs as root at every boot of every
 * worker of every slice of the queued resource. Static text: every value it needs comes from the metadata server (the
 * `xpk-*` attributes of src/core/vmjob/detached.ts, and `tpu-env`), so no user value is ever spliced into shell text.
 * Bash; needs curl, tar and python3 (URL-encoding, JSON), which TPU VM images have; no gsutil, gcloud or jq.
 *
 * What it does, step by step (README "Detached jobs: the startup script"):
 *  1. reads the job's attributes and this worker's slice and worker ids (`tpu-env`), and exports the multislice
 *     environment; MEGASCALE_* come from `tpu-env` when the TPU runtime wrote them (multislice queued resources), else
 *     one slice, the coordinator being worker 0 of `worker-network-endpoints`, port 8080 (as `xpk vm run`);
 *  2. stops at once when this worker's status object exists: it finished before (slice 0 worker 0 still goes on to 6);
 *  3. starts the Ops Agent's installation in the background (best effort) unless `xpk-ops-agent` is `false`;
 *  4. downloads the archive (transient failures retried with backoff) into the run directory and unpacks it over what
 *     an interrupted run left there;
 *  5. runs the command with bash in it, stdout and stderr appended to the log file, then appends
 *     `xpk-exit-status N`, uploads the log, then the status object holding N (126 when the code could not be had);
 *  6. on slice 0 worker 0 only, unless `xpk-keep` is `true`: waits until every worker's status object exists, then
 *     deletes the queued resource (force).
 *
 * Environment overrides, for tests only (a TPU VM's startup script has none of them set): GCE_METADATA_HOST (the
 * metadata server, as Google's libraries read it), XPK_JOB_LOG_FILE (default /var/log/xpk-job.log), XPK_JOB_DIR (the
 * runs' root, default /var/lib/xpk-job), XPK_JOB_POLL_SECONDS (slice 0 worker 0's listing interval, default 30) and
 * XPK_JOB_RETRY_SECONDS (the first retry's delay, doubled up to 60 s, default 2).
 */

/** The environment variables a test harness may set (see above); nothing in production sets them. */
export const DETACHED_SCRIPT_OVERRIDES = [
  'GCE_METADATA_HOST',
  'XPK_JOB_LOG_FILE',
  'XPK_JOB_DIR',
  'XPK_JOB_POLL_SECONDS',
  'XPK_JOB_RETRY_SECONDS',
] as const

// A template literal without a single substitution: every "${" of the shell is escaped (a test checks it).
export const DETACHED_STARTUP_SCRIPT = `#!/bin/bash
# xpk detached job: the startup script of every worker (xpk vm job create --detach). Every value comes from the
# metadata server; see xpk's README, "Detached jobs: the startup script".
set -u -o pipefail
umask 077

METADATA="http://\${GCE_METADATA_HOST:-metadata.google.internal}/computeMetadata/v1/instance"
LOG_FILE="\${XPK_JOB_LOG_FILE:-/var/log/xpk-job.log}"
JOB_ROOT="\${XPK_JOB_DIR:-/var/lib/xpk-job}"
POLL_SECONDS="\${XPK_JOB_POLL_SECONDS:-30}"
RETRY_SECONDS="\${XPK_JOB_RETRY_SECONDS:-2}"
ATTEMPTS=8
NOT_RUN=126

say() { printf 'xpk-job: %s\\n' "$*" >&2; }
die() { say "$*"; exit 1; }

TMP=$(mktemp -d "\${TMPDIR:-/tmp}/xpk-job.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$TMP"' EXIT

# Sleeps before retry number $1: RETRY_SECONDS, doubled each time, at most 60 s.
backoff() {
  sleep "$(awk -v base="$RETRY_SECONDS" -v n="$1" 'BEGIN { d = base * 2 ^ (n - 1); if (d > 60) d = 60; print d }')"
}

# Prints a metadata value (a path below instance/). Status 1: not set (404); 2: no answer after the retries.
metadata() {
  local attempt code
  for ((attempt = 1; ; attempt++)); do
    code=$(curl -sS -o "$TMP/metadata" -w '%{http_code}' --connect-timeout 5 --max-time 30 -H 'Metadata-Flavor: Google' "$METADATA/$1") || code=000
    case $code in
      200) cat "$TMP/metadata"; return 0 ;;
      404) return 1 ;;
    esac
    if [ "$attempt" -ge "$ATTEMPTS" ]; then say "metadata $1: HTTP $code after $attempt attempts"; return 2; fi
    backoff "$attempt"
  done
}
attribute() { metadata "attributes/$1"; }
# An attribute that may be unset (empty then); only an unreachable metadata server fails.
optional() {
  attribute "$1"
  local status=$?
  [ "$status" -eq 1 ] && return 0
  return "$status"
}

# URL-encodes $1 as one path segment or query value (a slash too).
enc() { python3 -c 'import sys, urllib.parse; sys.stdout.write(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }

# The service account's access token, as an Authorization header in $TMP/auth (read by curl, never on a command line).
authorize() {
  local token
  token=$(metadata service-accounts/default/token | python3 -c 'import json, sys; sys.stdout.write(json.load(sys.stdin)["access_token"])') || token=
  printf 'Authorization: Bearer %s\\n' "$token" > "$TMP/auth"
}

# api OUT CURL-ARGS...: one Google API call, its body to OUT; prints the HTTP status (000: no answer). Transient
# failures (no answer, 408, 429, 5xx) are retried with backoff, ATTEMPTS times in all.
api() {
  local out=$1 attempt code
  shift
  for ((attempt = 1; ; attempt++)); do
    authorize
    code=$(curl -sS -o "$out" -w '%{http_code}' --connect-timeout 20 --speed-limit 1 --speed-time 120 -H @"$TMP/auth" "$@") || code=000
    case $code in
      000 | 408 | 429 | 5??) ;;
      *) printf '%s' "$code"; return 0 ;;
    esac
    if [ "$attempt" -ge "$ATTEMPTS" ]; then printf '%s' "$code"; return 0; fi
    say "HTTP $code, retrying ($attempt of $ATTEMPTS)"
    backoff "$attempt"
  done
}
# What an error answer said, shortened.
answer() { head -c 400 "$1" 2>/dev/null | tr '\\n' ' '; }

object_url() { printf '%s/storage/v1/b/%s/o/%s' "$STORAGE" "$(enc "$BUCKET")" "$(enc "$1")"; }

# upload FILE NAME: writes the object (a media upload).
upload() {
  local code
  code=$(api "$TMP/upload" -X POST -H 'Content-Type: text/plain; charset=utf-8' --data-binary @"$1" "$STORAGE/upload/storage/v1/b/$(enc "$BUCKET")/o?uploadType=media&name=$(enc "$2")")
  [ "$code" = 200 ] && return 0
  say "could not upload gs://$BUCKET/$2: HTTP $code $(answer "$TMP/upload")"
  return 1
}

# Prints how many workers' status objects exist (every page of the listing); fails when the listing does.
count_statuses() {
  local page_token= count=0 page found next code
  while :; do
    code=$(api "$TMP/list" "$STORAGE/storage/v1/b/$(enc "$BUCKET")/o?prefix=$(enc "$STATUS_PREFIX")$page_token")
    [ "$code" = 200 ] || { say "could not list gs://$BUCKET/$STATUS_PREFIX: HTTP $code $(answer "$TMP/list")"; return 1; }
    page=$(python3 -c '
import json, re, sys
page = json.load(open(sys.argv[1]))
names = [item["name"][len(sys.argv[2]):] for item in page.get("items", [])]
done = [n for n in names if re.fullmatch("slice-[0-9]+-worker-[0-9]+", n)]
sys.stdout.write("%d %s" % (len(done), page.get("nextPageToken", "")))
' "$TMP/list" "$STATUS_PREFIX") || return 1
    found=\${page%% *}
    next=\${page#* }
    count=$((count + found))
    [ -n "$next" ] || break
    page_token="&pageToken=$(enc "$next")"
  done
  printf '%s' "$count"
}

# The value of KEY in tpu-env (lines "KEY: 'value'"); status 1 when absent.
tpu_env() {
  local line value
  while IFS= read -r line; do
    [ "\${line%%:*}" = "$1" ] || continue
    value=\${line#*:}
    value=\${value# }
    value=\${value#"'"}
    printf '%s' "\${value%"'"}"
    return 0
  done <<< "$TPU_ENV"
  return 1
}

number() { case $2 in '' | *[!0-9]*) die "$1 is '$2', not a number" ;; esac; }

# Installs the Ops Agent (unless installed) and has it stream the log file to Cloud Logging, as log LOG_ID. Best
# effort, in the background: the job runs whatever happens here.
ops_agent() {
  local attempt
  if ! dpkg -s google-cloud-ops-agent > /dev/null 2>&1; then
    curl -sSfo "$JOB_ROOT/add-google-cloud-ops-agent-repo.sh" https://dl.google.com/cloudagents/add-google-cloud-ops-agent-repo.sh || return 1
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
      bash "$JOB_ROOT/add-google-cloud-ops-agent-repo.sh" --also-install && break
      [ "$attempt" -lt 10 ] || return 1
      sleep 30 # another apt (unattended upgrades, at boot) holds the dpkg lock
    done
  fi
  mkdir -p /etc/google-cloud-ops-agent || return 1
  cat > /etc/google-cloud-ops-agent/config.yaml << EOF || return 1
logging:
  receivers:
    $LOG_ID:
      type: files
      include_paths: ['$LOG_FILE']
      record_log_file_path: true
  service:
    pipelines:
      xpk_job:
        receivers: [$LOG_ID]
EOF
  chmod 644 /etc/google-cloud-ops-agent/config.yaml
  systemctl restart google-cloud-ops-agent
}

log() { printf 'xpk-job: %s\\n' "$*" >> "$LOG_FILE"; }

# Steps 3 to 5: fetch the code, run the command, report.
run_job() {
  local code status=0
  if [ "$OPS_AGENT" != false ]; then
    ops_agent < /dev/null > "$JOB_ROOT/ops-agent.log" 2>&1 &
  fi
  log "run $RUN, slice $SLICE_ID worker $WORKER_ID, starting at $(date -u '+%Y-%m-%d %H:%M:%S') UTC"
  if [ -n "$ARCHIVE" ]; then
    code=$(api "$RUN_DIR/code.tar" "$(object_url "$ARCHIVE")?alt=media")
    if [ "$code" != 200 ]; then
      log "could not download gs://$BUCKET/$ARCHIVE: HTTP $code $(answer "$RUN_DIR/code.tar")"
      status=$NOT_RUN
    elif ! tar -xf "$RUN_DIR/code.tar" -C "$RUN_DIR/code" >> "$LOG_FILE" 2>&1; then
      log "could not unpack gs://$BUCKET/$ARCHIVE"
      status=$NOT_RUN
    fi
    rm -f "$RUN_DIR/code.tar"
  fi
  if [ "$status" -eq 0 ]; then
    (cd "$RUN_DIR/code" && exec bash -c "$COMMAND") < /dev/null >> "$LOG_FILE" 2>&1
    status=$?
  fi
  printf 'xpk-exit-status %s\\n' "$status" >> "$LOG_FILE"
  say "the command ended with status $status; uploading the log and the status"
  upload "$LOG_FILE" "$LOG_OBJECT" || return 1
  printf '%s\\n' "$status" > "$TMP/status"
  upload "$TMP/status" "$STATUS_OBJECT"
}

# Step 6: slice 0 worker 0 waits for every worker's status, then deletes the queued resource.
teardown() {
  local expected=$((NUM_SLICES * WORKERS_PER_SLICE)) found code
  say "waiting for the $expected workers' status objects under gs://$BUCKET/$STATUS_PREFIX"
  while :; do
    if found=$(count_statuses) && [ "$found" -ge "$expected" ]; then break; fi
    sleep "$POLL_SECONDS"
  done
  code=$(api "$TMP/delete" -X DELETE "$TPU_API/v2/$QUEUED_RESOURCE?force=true")
  case $code in
    200) say "every worker is done: deleting the queued resource $QUEUED_RESOURCE" ;;
    404) say "the queued resource $QUEUED_RESOURCE is already gone" ;;
    *) say "could not delete the queued resource $QUEUED_RESOURCE: HTTP $code $(answer "$TMP/delete")"; return 1 ;;
  esac
}

# ---- step 1: the job's metadata ----
RUN=$(attribute xpk-run) || die "the metadata attribute xpk-run is not set"
BUCKET=$(attribute xpk-bucket) || die "the metadata attribute xpk-bucket is not set"
PREFIX=$(attribute xpk-prefix) || die "the metadata attribute xpk-prefix is not set"
COMMAND=$(attribute xpk-command) || die "the metadata attribute xpk-command is not set"
ARCHIVE=$(optional xpk-archive) || die "the metadata server did not answer"
NUM_SLICES=$(attribute xpk-num-slices) || die "the metadata attribute xpk-num-slices is not set"
WORKERS_PER_SLICE=$(attribute xpk-workers-per-slice) || die "the metadata attribute xpk-workers-per-slice is not set"
KEEP=$(optional xpk-keep) || die "the metadata server did not answer"
QUEUED_RESOURCE=$(optional xpk-queued-resource) || die "the metadata server did not answer"
STORAGE=$(optional xpk-storage-endpoint) || die "the metadata server did not answer"
TPU_API=$(optional xpk-tpu-endpoint) || die "the metadata server did not answer"
OPS_AGENT=$(optional xpk-ops-agent) || die "the metadata server did not answer"
TPU_ENV=$(attribute tpu-env) || die "the metadata attribute tpu-env is not set"
STORAGE=\${STORAGE:-https://storage.googleapis.com}
STORAGE=\${STORAGE%/}
TPU_API=\${TPU_API:-https://tpu.googleapis.com}
TPU_API=\${TPU_API%/}
number xpk-num-slices "$NUM_SLICES"
number xpk-workers-per-slice "$WORKERS_PER_SLICE"

WORKER_ID=$(tpu_env WORKER_ID) || WORKER_ID=$(optional agent-worker-number) || die "the metadata server did not answer"
SLICE_ID=$(tpu_env MEGASCALE_SLICE_ID) || SLICE_ID=0
number "the worker id" "$WORKER_ID"
number "the slice id" "$SLICE_ID"

export XPK_RUN_NAME="$RUN" TPU_PREFIX="$RUN" XPK_SLICE_ID="$SLICE_ID" XPK_WORKER_ID="$WORKER_ID"
export MEGASCALE_SLICE_ID="$SLICE_ID"
MEGASCALE_NUM_SLICES=$(tpu_env MEGASCALE_NUM_SLICES) || MEGASCALE_NUM_SLICES=$NUM_SLICES
MEGASCALE_PORT=$(tpu_env MEGASCALE_PORT) || MEGASCALE_PORT=8080
export MEGASCALE_NUM_SLICES MEGASCALE_PORT
if MEGASCALE_COORDINATOR_ADDRESS=$(tpu_env MEGASCALE_COORDINATOR_ADDRESS); then
  export MEGASCALE_COORDINATOR_ADDRESS
elif [ "$NUM_SLICES" -le 1 ]; then
  # One slice: its worker 0 ("uid:worker:ip,..." lists the workers in order) is slice 0 worker 0.
  ENDPOINTS=$(optional worker-network-endpoints) || die "the metadata server did not answer"
  FIRST=\${ENDPOINTS%%,*}
  if [ -n "$FIRST" ]; then export MEGASCALE_COORDINATOR_ADDRESS="\${FIRST##*:}:$MEGASCALE_PORT"; fi
else
  say "tpu-env has no MEGASCALE_COORDINATOR_ADDRESS: not set for the command"
fi

LOG_OBJECT="$PREFIX/logs/slice-$SLICE_ID-worker-$WORKER_ID.log"
STATUS_OBJECT="$PREFIX/status/slice-$SLICE_ID-worker-$WORKER_ID"
STATUS_PREFIX="$PREFIX/status/"
# The run's name as a file name and an Ops Agent receiver id (the Cloud Logging log name): other characters as _.
SAFE_RUN=$(printf '%s' "$RUN" | tr -c 'A-Za-z0-9_-' '_')
LOG_ID="\${SAFE_RUN}_log"
RUN_DIR="$JOB_ROOT/$SAFE_RUN"
mkdir -p "$RUN_DIR/code" "$(dirname "$LOG_FILE")" || die "cannot create $RUN_DIR"

# ---- step 2: finished before? ----
code=$(api "$TMP/status" "$(object_url "$STATUS_OBJECT")")
if [ "$code" = 200 ]; then
  say "slice $SLICE_ID worker $WORKER_ID finished before (gs://$BUCKET/$STATUS_OBJECT exists): not running the command again"
else
  run_job || die "slice $SLICE_ID worker $WORKER_ID could not report its status"
fi

# ---- step 6 ----
if [ "$SLICE_ID" = 0 ] && [ "$WORKER_ID" = 0 ] && [ "$KEEP" != true ]; then
  [ -n "$QUEUED_RESOURCE" ] || die "the metadata attribute xpk-queued-resource is not set: nothing to delete"
  teardown || exit 1
fi
exit 0
`
