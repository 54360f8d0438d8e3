"""Every CLI error is one line and a non-zero exit (issue #19: `--trials -1` stored a winner,
`METALFORGE_EMULATOR_WORKERS=abc`, a bad `db import`, `--shapes` of the wrong rank, a target with a
syntax error, `--plot` into an unwritable directory and `db export` into a missing one ended in
tracebacks, `METALFORGE_TUNE_ON_MISS=yes` was silently ignored)."""
from __future__ import annotations

import json

import pytest

from metalforge import cli
from metalforge.runtime import backends
from metalforge.tuning_db import TuningDB

STANDIN = "metalforge.tests.tuning.cli_kernels"

# (arguments, environment, what the one error line says)
BAD_INPUTS = [
    (["autotune", STANDIN, "--trials", "-1"], {}, "--trials: '-1' is not an integer >= 1"),
    (["autotune", STANDIN, "--trials", "0"], {}, "--trials: '0' is not an integer >= 1"),
    (["autotune", STANDIN, "--timeout", "-1"], {}, "--timeout: '-1' is not a number >= 0.001"),
    (["autotune", STANDIN, "--patience", "-3"], {}, "--patience: '-3' is not an integer >= 1"),
    (["autotune", STANDIN, "--shapes", "12xq"], {}, "malformed shape '12xq'"),
    (["autotune", STANDIN, "--shapes", "300", "12x34"], {},
     "kernel `double_plus_one`: shape 12x34 has 2 dimension(s), its tune_args takes 1 (standard shapes: 300)"),
    (["autotune", "{syntax_error}"], {}, "broken.py:2: invalid syntax: the tune target does not parse (`def f(:`)"),
    (["autotune", STANDIN, "--plot", "{bad_json}/plots"], {}, "--plot: cannot write plots into"),
    (["db", "export", "{missing}/out.json", "--db", "{database}"], {}, "cannot write"),
    (["db", "list"], {}, "no tuning database at"),
    (["db", "import", "{missing}"], {}, "cannot read"),
    (["db", "import", "{bad_json}"], {}, "nothing was imported"),
    (["autotune", STANDIN, "--trials", "1"], {"METALFORGE_EMULATOR_WORKERS": "abc"},
     "METALFORGE_EMULATOR_WORKERS='abc': use an integer >= 0"),
    (["autotune", STANDIN, "--trials", "1"], {"METALFORGE_EMULATOR_CHECKED": "maybe"},
     "METALFORGE_EMULATOR_CHECKED='maybe': use 1/true/yes/on or 0/false/no/off"),
]


@pytest.mark.parametrize("argv, environment, says", BAD_INPUTS, ids=[" ".join(a[0]) + str(a[1]) for a in BAD_INPUTS])
def test_bad_input_is_one_line_and_a_nonzero_exit(argv, environment, says, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("METALFORGE_DB", str(tmp_path / "none.sqlite"))
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    if environment:  # back ends read the environment when the process first makes them
        backends.forget()
    bad_json = tmp_path / "bad.json"
    bad_json.write_text(json.dumps({"format": "metalforge-tuning", "winners": [{"kernel": "k"}], "trials": []}))
    syntax_error = tmp_path / "broken.py"
    syntax_error.write_text("import metalforge\ndef f(:\n")
    database = tmp_path / "tuning.sqlite"
    TuningDB(database)
    argv = [a.format(missing=tmp_path / "missing.json", bad_json=bad_json, syntax_error=syntax_error,
                     database=database) for a in argv]
    try:
        code = cli.main(argv)
    except SystemExit as e:  # argparse's own errors
        code = e.code
    err = capsys.readouterr().err
    assert code != 0, err
    assert err.count("\n") == 1 and "error:" in err and says in err, err
    assert not (tmp_path / "none.sqlite").exists() or argv[:2] == ["db", "import"]


def test_tune_on_miss_accepts_yes_and_refuses_nonsense(monkeypatch):
    from metalforge import env

    for word in ("yes", "1", "On"):
        monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", word)
        assert env.flag("METALFORGE_TUNE_ON_MISS", False)
    monkeypatch.setenv("METALFORGE_TUNE_ON_MISS", "sometimes")
    with pytest.raises(env.EnvironmentVariableError, match="METALFORGE_TUNE_ON_MISS='sometimes'"):
        env.flag("METALFORGE_TUNE_ON_MISS", False)
