// metalforge emulator: stands in for MLX's complex.h when MLX's production kernels are compiled
// (runtime/emulator/mlx_kernels.py puts this directory on the include path before MLX's sources).
#pragma once
#include "mlx_complex.h"
