"""Fixtures for the autotuner and tuning-database tests: the emulator, a fresh database file and a
real PostgreSQL server for the tuning farm."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Iterator, Optional

import pytest

from metalforge.runtime.emulator import EmulatorBackend


@pytest.fixture(scope="session")
def emu() -> EmulatorBackend:
    if not EmulatorBackend.available():
        pytest.skip("the emulator needs clang++ >= 17")
    return EmulatorBackend(workers=0)


@pytest.fixture
def db_path(tmp_path, monkeypatch):
    path = tmp_path / "tuning.sqlite"
    monkeypatch.setenv("METALFORGE_DB", str(path))
    monkeypatch.delenv("METALFORGE_TUNE_ON_MISS", raising=False)
    return path


def _postgres_bin(name: str) -> Optional[str]:
    """A PostgreSQL server binary: on PATH, else where Debian's `postgresql` package puts it."""
    found = shutil.which(name) or sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found if isinstance(found, str) else (found[-1] if found else None)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A private PostgreSQL cluster (initdb in a temp dir, 127.0.0.1 on a free port, trust auth),
    stopped and deleted afterwards; yields the URL of its `postgres` database. PostgreSQL refuses to
    run as root: as root, the cluster runs as the `postgres` user (created if missing, as Debian's
    package does), through `setpriv`."""
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (.ci/install installs Debian's postgresql)")
    pytest.importorskip("psycopg2", reason="the PostgreSQL driver psycopg2 is not installed (pip install -e '.[test]')")
    as_user: list[str] = []
    directory = Path(tempfile.mkdtemp(prefix="mf-postgres-"))
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "postgres"], check=True)
        user = pwd.getpwnam("postgres")
        os.chown(directory, user.pw_uid, user.pw_gid)
        as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = directory / "data"
    subprocess.run([*as_user, initdb, "-D", str(data), "-A", "trust", "-U", "mf", "--no-sync"], check=True,
                   capture_output=True)
    subprocess.run([*as_user, pg_ctl, "-D", str(data), "-l", str(directory / "log"), "-w", "start", "-o",
                    f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={directory} -c fsync=off "
                    "-c max_connections=100"], check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg2://mf@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A new, empty database on the private cluster, for one test."""
    import psycopg2

    name = f"t{uuid.uuid4().hex[:12]}"
    conn = psycopg2.connect(postgres_server.replace("postgresql+psycopg2", "postgresql"))
    conn.autocommit = True
    conn.cursor().execute(f"create database {name}")
    conn.close()
    return postgres_server.rsplit("/", 1)[0] + "/" + name
