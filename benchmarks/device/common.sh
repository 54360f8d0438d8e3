# Sourced on the lent GPU machine after shared/device's bootstrap (from the repository root):
# makes the working copy ("new") and .device/base.tgz ("base": `git archive <rev> | gzip >
# .device/base.tgz` here, carried with the call) importable as `metalforge`, and defines
# `new SCRIPT ARGS` / `base SCRIPT ARGS` to run a Python script against either tree (base from its
# own root, so benchmarks/ paths name its own scripts). Logs go under $OUT.
set -u
mkdir -p /tmp/mfnew /tmp/mfbase/metalforge "$OUT"
ln -sfn "$(pwd)" /tmp/mfnew/metalforge
if [ ! -f /tmp/mfbase/metalforge/__init__.py ] && [ -f .device/base.tgz ]; then
  tar xzf .device/base.tgz -C /tmp/mfbase/metalforge
fi
new()  { PYTHONPATH=/tmp/mfnew:$PYTHONPATH python3 "$@"; }
base() { (cd /tmp/mfbase/metalforge && PYTHONPATH=/tmp/mfbase:$PYTHONPATH python3 "$@"); }
