"""metalforge.kernels (see docs/)."""
