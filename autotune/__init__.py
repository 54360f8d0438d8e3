"""metalforge.autotune (see docs/)."""
