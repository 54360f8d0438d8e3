// Stand-in for "mlx/backend/cuda/device/utils.cuh", the header MLX's cuda_kernel includes before a
// kernel's own header: what a custom kernel body can rely on from it (the fp16/bf16 types and their
// operators, cuda::std, Shape/Strides for `<input>_shape` arguments). MLX compiles with NVRTC and
// `--device-as-default-execution-space`; these tests compile with nvcc, so helpers must say __device__.
#pragma once

#define MAX_NDIM 10
#define WARP_SIZE 32

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/std/array>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/tuple>

namespace mlx::core::cu {
using Shape = cuda::std::array<int32_t, MAX_NDIM>;
using Strides = cuda::std::array<int64_t, MAX_NDIM>;
}  // namespace mlx::core::cu
