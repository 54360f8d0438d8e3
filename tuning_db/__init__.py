"""metalforge.tuning_db (see docs/)."""
