"""metalforge.codegen (see docs/)."""
