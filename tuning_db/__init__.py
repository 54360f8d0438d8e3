"""metalforge.tuning_db: tuned configs per kernel, machine, dtypes and shape, in one SQLite file."""
from .device import DeviceIdentity, identify
from .store import (SCHEMA_VERSION, STATUSES, Lookup, MergeReport, ShipReport, TuningDB, TuningKey, bucket, default_path,
                    shape_distance)

__all__ = ["DeviceIdentity", "Lookup", "MergeReport", "ShipReport", "SCHEMA_VERSION", "STATUSES", "TuningDB", "TuningKey", "bucket",
           "default_path", "identify", "shape_distance"]
