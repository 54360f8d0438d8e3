"""metalforge.dsl (see docs/)."""
