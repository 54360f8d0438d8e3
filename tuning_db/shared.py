"""The shared store of a tuning farm: Optuna's RDB storage on a server (PostgreSQL, or any SQLAlchemy
URL Optuna accepts) in which workers on several machines tune one study together.

Optuna coordinates the workers (each trial is taken by one of them) and recovers from a dead one:
a running trial's worker writes a heartbeat every `heartbeat_s` seconds; a trial without one for
twice that is marked failed by the next worker that starts a trial, and
`RetryHeartbeatStaleTrialCallback` (the renamed `RetryFailedTrialCallback` of Optuna < 4.9)
queues its config again. Each trial's config, status and reason are its user attributes (see
`Autotuner.search`); each study's winner rows are user attributes of the study (`WINNER_ATTR` and
a digest of the key), which `db pull` copies into a local file and `db push` fills from one.
"""
from __future__ import annotations

import hashlib
import json
import time
import warnings
from typing import Any

from ..errors import TuningDatabaseError
from .store import WINNER_PK, TuningDB, winner_preference

HEARTBEAT_S = 30  # seconds between a worker's heartbeats; a trial silent for twice that is retried
RETRIES = 3       # times one config is queued again after its workers died
WINNER_ATTR = "mf_winner:"
SCHEMA_ATTEMPTS = 5  # tries to open a store whose tables other workers are creating at the same moment


def _display(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL is shown as given (SQLAlchemy will say why)
        return url


def open_storage(url: str, heartbeat_s: int = HEARTBEAT_S):
    """Optuna's RDB storage at `url`, with heartbeats and retries of a dead worker's trial."""
    import optuna
    from sqlalchemy.exc import IntegrityError, ProgrammingError, SQLAlchemyError

    try:
        for attempt in range(1, SCHEMA_ATTEMPTS + 1):
            try:
                with warnings.catch_warnings():  # heartbeats are "experimental" in Optuna 5: one warning per worker
                    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                    return optuna.storages.RDBStorage(
                        url, heartbeat_interval=heartbeat_s, grace_period=2 * heartbeat_s,
                        heartbeat_stale_trial_callback=optuna.storages.RetryHeartbeatStaleTrialCallback(
                            max_retry=RETRIES))
            except (IntegrityError, ProgrammingError):
                # Workers starting at once on an empty database all create Optuna's tables; PostgreSQL
                # refuses all but one ("duplicate key ... pg_type"): the others find them made on retry.
                if attempt == SCHEMA_ATTEMPTS:
                    raise
                time.sleep(0.2 * attempt)
    except (SQLAlchemyError, ImportError, ValueError) as e:  # bad URL, driver not installed, server unreachable
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise TuningDatabaseError(f"cannot open the shared tuning store {_display(url)}: {reason}") from e


def _winner_attr(row: dict) -> str:
    key = json.dumps([row[c] for c in WINNER_PK])
    return WINNER_ATTR + hashlib.sha256(key.encode()).hexdigest()[:16]


def publish_winner(storage: Any, row: dict) -> bool:
    """Store a winner row with its study (created if missing), unless the store holds a preferred one
    for its key (`winner_preference`, the rule of every merge); returns whether it was stored."""
    import optuna

    try:
        study_id = storage.get_study_id_from_name(row["study"])
    except KeyError:
        try:
            study_id = storage.create_new_study([optuna.study.StudyDirection.MINIMIZE], row["study"])
        except optuna.exceptions.DuplicatedStudyError:  # another worker created it meanwhile
            study_id = storage.get_study_id_from_name(row["study"])
    attr = _winner_attr(row)
    stored = storage.get_study_user_attrs(study_id).get(attr)
    if stored is not None and winner_preference(stored) >= winner_preference(row):
        return False
    storage.set_study_user_attr(study_id, attr, row)
    return True


def shared_winners(storage: Any) -> list[dict]:
    """Every winner row in the store."""
    return [value for study in storage.get_all_studies() for attr, value in sorted(study.user_attrs.items())
            if attr.startswith(WINNER_ATTR)]


def push(db: TuningDB, url: str) -> int:
    """Store `db`'s winners in the shared store at `url`; returns how many were stored (new or preferred)."""
    storage = open_storage(url)
    return sum(publish_winner(storage, row) for row in db.winners())


def pull(db: TuningDB, url: str):
    """Merge the shared store's winners into `db`, validated and ranked as any merge (`TuningDB.merge`)."""
    winners = shared_winners(open_storage(url))
    TuningDB.validate_rows(_display(url), winners, [])
    return db.merge_rows(winners, [])
