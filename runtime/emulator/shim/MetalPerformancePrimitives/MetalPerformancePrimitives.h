// metalforge emulator: MetalPerformancePrimitives (Metal 4 tensor ops): mpp::tensor_ops::matmul2d.
// What is emulated, and how strictly: docs/emulator.md, "Metal 4 tensor ops".
#pragma once
#include <metal_tensor>
#include <mfemu/matmul2d.h>
