# Sourced on the lent GPU machine after shared/device's bootstrap (from the repository root):
# makes the working copy ("new") and .device/base.tgz ("base": `git archive <rev> | gzip >
# .device/base.tgz` here, carried with the call; likewise .device/mid.tgz, "mid", where carried: a
# commit between them) importable as `metalforge` under /tmp/mf<name>, and defines
# `new SCRIPT ARGS` / `base SCRIPT ARGS` to run a Python script against either tree (base from its
# own root, so benchmarks/ paths name its own scripts). Logs go under $OUT.
set -u
mkdir -p /tmp/mfnew /tmp/mfbase/metalforge "$OUT"
ln -sfn "$(pwd)" /tmp/mfnew/metalforge
for _mf_tree in base mid; do
  if [ ! -f /tmp/mf$_mf_tree/metalforge/__init__.py ] && [ -f .device/$_mf_tree.tgz ]; then
    mkdir -p /tmp/mf$_mf_tree/metalforge && tar xzf .device/$_mf_tree.tgz -C /tmp/mf$_mf_tree/metalforge
  fi
done
new()  { PYTHONPATH=/tmp/mfnew:$PYTHONPATH python3 "$@"; }
base() { (cd /tmp/mfbase/metalforge && PYTHONPATH=/tmp/mfbase:$PYTHONPATH python3 "$@"); }
