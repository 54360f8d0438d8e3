
// Neighbouring elements moved in one access; the address must be aligned to the vector's size
// (global memory: the kernel is versioned on its arguments' alignment).
template <int N, typename T> struct alignas(sizeof(T) * N) mf_vec { T v[N]; };
template <typename T> __device__ __forceinline__ bool mf_is_aligned(const T* p, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}
// The vector's bytes as whole registers: a masked load then merges registers (a predicated load),
// not 16-bit elements one by one (which costs a byte permute per element).
template <int B> struct mf_words { using type = unsigned char; };
template <> struct mf_words<2> { using type = unsigned short; };
template <> struct mf_words<4> { using type = unsigned; };
template <> struct mf_words<8> { using type = uint2; };
template <> struct mf_words<16> { using type = uint4; };
template <int N, typename T> __device__ __forceinline__ void mf_load_masked(mf_vec<N, T>& v, const T* p, bool mask) {
  using W = typename mf_words<sizeof(mf_vec<N, T>)>::type;
  W w = *reinterpret_cast<const W*>(&v);
  if (mask) w = *reinterpret_cast<const W*>(p);
  v = *reinterpret_cast<const mf_vec<N, T>*>(&w);
}
// Conversions through float for __half/__nv_bfloat16 (their direct conversions are ambiguous).
template <typename T> struct mf_convert {
  template <typename S> static __device__ __forceinline__ T from(S x) { return static_cast<T>(x); }
  static __device__ __forceinline__ T from(__half x) { return static_cast<T>(__half2float(x)); }
  static __device__ __forceinline__ T from(__nv_bfloat16 x) { return static_cast<T>(__bfloat162float(x)); }
};
template <> struct mf_convert<bool> {
  template <typename S> static __device__ __forceinline__ bool from(S x) { return static_cast<bool>(x); }
  static __device__ __forceinline__ bool from(__half x) { return __half2float(x) != 0.0f; }
  static __device__ __forceinline__ bool from(__nv_bfloat16 x) { return __bfloat162float(x) != 0.0f; }
};
template <> struct mf_convert<__half> {
  template <typename S> static __device__ __forceinline__ __half from(S x) { return __float2half(static_cast<float>(x)); }
  static __device__ __forceinline__ __half from(__half x) { return x; }
  static __device__ __forceinline__ __half from(__nv_bfloat16 x) { return __float2half(__bfloat162float(x)); }
};
template <> struct mf_convert<__nv_bfloat16> {
  template <typename S> static __device__ __forceinline__ __nv_bfloat16 from(S x) {
    return __float2bfloat16(static_cast<float>(x));
  }
  static __device__ __forceinline__ __nv_bfloat16 from(__half x) { return __float2bfloat16(__half2float(x)); }
  static __device__ __forceinline__ __nv_bfloat16 from(__nv_bfloat16 x) { return x; }
};
template <typename T, typename S> __device__ __forceinline__ T mf_cast(S x) { return mf_convert<T>::from(x); }
// Triton's fp32 math: the hardware approximations its PTX uses (ex2.approx, sqrt.approx, div.full);
// exp2 flushes results below 2^-126 to zero as Metal's fast math does (.ftz: one instruction, where
// keeping them costs a compare and two predicated multiplies around it).
__device__ __forceinline__ float mf_exp2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mf_exp(float x) { return mf_exp2(x * 1.4426950408889634f); }
__device__ __forceinline__ float mf_fdiv(float a, float b) {
  float y;
  asm("div.full.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}
__device__ __forceinline__ float mf_sigmoid(float x) { return mf_fdiv(1.0f, 1.0f + mf_exp(-x)); }

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_N = N[0];
const auto mf_K = K[0];
const auto mf_norm_ptr = norm_ptr[0];
const auto mf_eps = eps[0];
float* x_1_smem = reinterpret_cast<float*>(mf_shared + 0);
if (((mf_is_aligned(wg_ptr, 16) && mf_is_aligned(wu_ptr, 16)) && mf_is_aligned(x_ptr, 8))) {
  // 295: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
  int t = (int(blockIdx.x) * 16);
  // 296: gate = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 297: up = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 298: for k0 in range(0, K, BLOCK_K):
  float gate[8];
  float up[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float gate_1 = 0.0f;
    gate[k] = gate_1;
    float up_1 = 0.0f;
    up[k] = up_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 512) {
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_1 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_2 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_3 = (mf_K / 8);
    int rows = t;
    int kw = t_1;
    bool k_ok = ((kw / 8) < t_2);
    unsigned words[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 4) {
      int rows_1 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_1 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_1 = ((kw_1 / 8) < t_2);
      bool mask = ((rows_1 < mf_N) & k_ok_1);
      {
        mf_vec<4, unsigned> mf_v{{0u, 0u, 0u, 0u}};
        mf_load_masked(mf_v, ((wg_ptr + (rows_1 * t_3)) + kw_1), mask);
        words[k] = mf_v.v[0];
        words[(k + 1)] = mf_v.v[1];
        words[(k + 2)] = mf_v.v[2];
        words[(k + 3)] = mf_v.v[3];
      }
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      unsigned t_4 = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<unsigned>(((k % 8) * 4)));
      unsigned t_5 = (t_4 & 15u);
      q[k] = static_cast<float>(t_5);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_6 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bool mask = ((rows < mf_N) & k_ok);
    float scale[8];
    float bias[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 4) {
      int rows_2 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_2 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
      bool k_ok_2 = ((kw_2 / 8) < t_2);
      bool mask_1 = ((rows_2 < mf_N) & k_ok_2);
      __half t_7_0 = (mask_1 ? (sg_ptr + groups_1)[0] : __float2half(0.0f));
      __half t_7_1 = t_7_0;
      __half t_7_2 = t_7_0;
      __half t_7_3 = t_7_0;
      scale[k] = static_cast<float>(t_7_0);
      scale[(k + 1)] = static_cast<float>(t_7_1);
      scale[(k + 2)] = static_cast<float>(t_7_2);
      scale[(k + 3)] = static_cast<float>(t_7_3);
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      int rows_3 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_3 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_2 = ((rows_3 * t_6) + (kw_3 / 8));
      bool k_ok_3 = ((kw_3 / 8) < t_2);
      bool mask_2 = ((rows_3 < mf_N) & k_ok_3);
      __half t_8_0 = (mask_2 ? (bg_ptr + groups_2)[0] : __float2half(0.0f));
      __half t_8_1 = t_8_0;
      __half t_8_2 = t_8_0;
      __half t_8_3 = t_8_0;
      bias[k] = static_cast<float>(t_8_0);
      bias[(k + 1)] = static_cast<float>(t_8_1);
      bias[(k + 2)] = static_cast<float>(t_8_2);
      bias[(k + 3)] = static_cast<float>(t_8_3);
    }
    // 64: return q * scale + bias, kw, k_ok
    float wg[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      float t_9 = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
      wg[k] = (t_9 + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
    }
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_10 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_11 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_12 = (mf_K / 8);
    int kw_4 = t_10;
    bool k_ok_4 = ((kw_4 / 8) < t_11);
    unsigned words_1[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 4) {
      int rows_4 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_5 = (t_10 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_5 = ((kw_5 / 8) < t_11);
      bool mask_3 = ((rows_4 < mf_N) & k_ok_5);
      {
        mf_vec<4, unsigned> mf_v{{0u, 0u, 0u, 0u}};
        mf_load_masked(mf_v, ((wu_ptr + (rows_4 * t_12)) + kw_5), mask_3);
        words_1[k] = mf_v.v[0];
        words_1[(k + 1)] = mf_v.v[1];
        words_1[(k + 2)] = mf_v.v[2];
        words_1[(k + 3)] = mf_v.v[3];
      }
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q_1[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      unsigned t_13 = (words_1[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<unsigned>(((k % 8) * 4)));
      unsigned t_14 = (t_13 & 15u);
      q_1[k] = static_cast<float>(t_14);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_15 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bool mask_3 = ((rows < mf_N) & k_ok_4);
    float scale_1[8];
    float bias_1[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 4) {
      int rows_5 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_6 = (t_10 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_4 = ((rows_5 * t_15) + (kw_6 / 8));
      bool k_ok_6 = ((kw_6 / 8) < t_11);
      bool mask_4 = ((rows_5 < mf_N) & k_ok_6);
      __half t_16_0 = (mask_4 ? (su_ptr + groups_4)[0] : __float2half(0.0f));
      __half t_16_1 = t_16_0;
      __half t_16_2 = t_16_0;
      __half t_16_3 = t_16_0;
      scale_1[k] = static_cast<float>(t_16_0);
      scale_1[(k + 1)] = static_cast<float>(t_16_1);
      scale_1[(k + 2)] = static_cast<float>(t_16_2);
      scale_1[(k + 3)] = static_cast<float>(t_16_3);
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      int rows_6 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_7 = (t_10 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_5 = ((rows_6 * t_15) + (kw_7 / 8));
      bool k_ok_7 = ((kw_7 / 8) < t_11);
      bool mask_5 = ((rows_6 < mf_N) & k_ok_7);
      __half t_17_0 = (mask_5 ? (bu_ptr + groups_5)[0] : __float2half(0.0f));
      __half t_17_1 = t_17_0;
      __half t_17_2 = t_17_0;
      __half t_17_3 = t_17_0;
      bias_1[k] = static_cast<float>(t_17_0);
      bias_1[(k + 1)] = static_cast<float>(t_17_1);
      bias_1[(k + 2)] = static_cast<float>(t_17_2);
      bias_1[(k + 3)] = static_cast<float>(t_17_3);
    }
    // 64: return q * scale + bias, kw, k_ok
    float wu[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      float t_18 = (q_1[k] * scale_1[(((k / 32) * 4) + ((k / 8) % 4))]);
      wu[k] = (t_18 + bias_1[(((k / 32) * 4) + ((k / 8) % 4))]);
    }
    // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
    // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
    __half t_19[4];
    int kw_8 = (t_10 + ((int(threadIdx.x / 32u) * 16) + (int(threadIdx.x % 32u) / 2)));
    int offs_1 = ((kw_8 * 8) + ((int(threadIdx.x % 32u) % 2) * 4));
    bool k_ok_8 = ((kw_8 / 8) < t_11);
    {
      mf_vec<4, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, (x_ptr + offs_1), k_ok_8);
      t_19[0] = mf_v.v[0];
      t_19[1] = mf_v.v[1];
      t_19[2] = mf_v.v[2];
      t_19[3] = mf_v.v[3];
    }
    float x[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      x[k] = static_cast<float>(t_19[k]);
    }
    // 302: gate += tl.sum(wg * x, axis=2)
    __syncthreads();
    *reinterpret_cast<mf_vec<4, float>*>((x_1_smem + ((((int(threadIdx.x / 32u) * 16) + (int(threadIdx.x % 32u) / 2)) * 8) + ((int(threadIdx.x % 32u) % 2) * 4)))) = mf_vec<4, float>{{x[0], x[1], x[2], x[3]}};
    __syncthreads();
    float t_20[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      t_20[k] = (wg[k] * x_1_smem[(((((int(threadIdx.x % 32u) % 16) * 4) + ((k / 8) % 4)) * 8) + (k % 8))]);
    }
    float gate_2[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float acc = t_20[(((k / 4) * 32) + ((k % 4) * 8))];
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
      gate_2[k] = (gate[k] + acc);
    }
    // 303: up += tl.sum(wu * x, axis=2)
    float t_21[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      t_21[k] = (wu[k] * x_1_smem[(((((int(threadIdx.x % 32u) % 16) * 4) + ((k / 8) % 4)) * 8) + (k % 8))]);
    }
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float acc_1 = t_21[(((k / 4) * 32) + ((k % 4) * 8))];
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
      float up_2 = (up[k] + acc_1);
      float gate_3 = gate_2[k];
      float up_3 = up_2;
      gate[k] = gate_3;
      up[k] = up_3;
    }
  }
  // 304: g = tl.sum(gate, axis=1)
  float g[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    g[k] = gate[(k * 4)];
    g[k] = (g[k] + gate[((k * 4) + 1)]);
    g[k] = (g[k] + gate[((k * 4) + 2)]);
    g[k] = (g[k] + gate[((k * 4) + 3)]);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner = __shfl_xor_sync(0xffffffffu, g[k], 1);
    g[k] = (g[k] + partner);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_1 = __shfl_xor_sync(0xffffffffu, g[k], 2);
    g[k] = (g[k] + partner_1);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_2 = __shfl_xor_sync(0xffffffffu, g[k], 4);
    g[k] = (g[k] + partner_2);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_3 = __shfl_xor_sync(0xffffffffu, g[k], 8);
    g[k] = (g[k] + partner_3);
  }
  // 305: u = tl.sum(up, axis=1)
  float u[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    u[k] = up[(k * 4)];
    u[k] = (u[k] + up[((k * 4) + 1)]);
    u[k] = (u[k] + up[((k * 4) + 2)]);
    u[k] = (u[k] + up[((k * 4) + 3)]);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_4 = __shfl_xor_sync(0xffffffffu, u[k], 1);
    u[k] = (u[k] + partner_4);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_5 = __shfl_xor_sync(0xffffffffu, u[k], 2);
    u[k] = (u[k] + partner_5);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_6 = __shfl_xor_sync(0xffffffffu, u[k], 4);
    u[k] = (u[k] + partner_6);
  }
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float partner_7 = __shfl_xor_sync(0xffffffffu, u[k], 8);
    u[k] = (u[k] + partner_7);
  }
  // 310: tl.store(out_ptr + rows, g * tl.sigmoid(g) * u, mask=rows < N)
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float t_22 = mf_sigmoid(g[k]);
    float t_23 = (g[k] * t_22);
    float t_24 = (t_23 * u[k]);
    __half t_25 = mf_cast<__half>(t_24);
    int rows = (t + (((k * 4) * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
    if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows < mf_N))) {
      *((out_ptr + rows)) = t_25;
    }
  }
} else {
  // 295: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
  int t = (int(blockIdx.x) * 16);
  // 296: gate = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 297: up = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 298: for k0 in range(0, K, BLOCK_K):
  float gate[8];
  float up[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    float gate_1 = 0.0f;
    gate[k] = gate_1;
    float up_1 = 0.0f;
    up[k] = up_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 512) {
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_1 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_2 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_3 = (mf_K / 8);
    int rows = t;
    int kw = t_1;
    bool k_ok = ((kw / 8) < t_2);
    unsigned words[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 4) {
      int rows_1 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_1 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_1 = ((kw_1 / 8) < t_2);
      bool mask = ((rows_1 < mf_N) & k_ok_1);
      if (mask) {
        words[k] = ((wg_ptr + (rows_1 * t_3)) + kw_1)[0];
        words[(k + 1)] = ((wg_ptr + (rows_1 * t_3)) + kw_1)[1];
        words[(k + 2)] = ((wg_ptr + (rows_1 * t_3)) + kw_1)[2];
        words[(k + 3)] = ((wg_ptr + (rows_1 * t_3)) + kw_1)[3];
      } else {
        words[k] = 0u;
        words[(k + 1)] = 0u;
        words[(k + 2)] = 0u;
        words[(k + 3)] = 0u;
      }
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      unsigned t_4 = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<unsigned>(((k % 8) * 4)));
      unsigned t_5 = (t_4 & 15u);
      q[k] = static_cast<float>(t_5);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_6 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bool mask = ((rows < mf_N) & k_ok);
    float scale[8];
    float bias[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 4) {
      int rows_2 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_2 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
      bool k_ok_2 = ((kw_2 / 8) < t_2);
      bool mask_1 = ((rows_2 < mf_N) & k_ok_2);
      __half t_7_0 = (mask_1 ? (sg_ptr + groups_1)[0] : __float2half(0.0f));
      __half t_7_1 = t_7_0;
      __half t_7_2 = t_7_0;
      __half t_7_3 = t_7_0;
      scale[k] = static_cast<float>(t_7_0);
      scale[(k + 1)] = static_cast<float>(t_7_1);
      scale[(k + 2)] = static_cast<float>(t_7_2);
      scale[(k + 3)] = static_cast<float>(t_7_3);
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      int rows_3 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_3 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_2 = ((rows_3 * t_6) + (kw_3 / 8));
      bool k_ok_3 = ((kw_3 / 8) < t_2);
      bool mask_2 = ((rows_3 < mf_N) & k_ok_3);
      __half t_8_0 = (mask_2 ? (bg_ptr + groups_2)[0] : __float2half(0.0f));
      __half t_8_1 = t_8_0;
      __half t_8_2 = t_8_0;
      __half t_8_3 = t_8_0;
      bias[k] = static_cast<float>(t_8_0);
      bias[(k + 1)] = static_cast<float>(t_8_1);
      bias[(k + 2)] = static_cast<float>(t_8_2);
      bias[(k + 3)] = static_cast<float>(t_8_3);
    }
    // 64: return q * scale + bias, kw, k_ok
    float wg[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      float t_9 = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
      wg[k] = (t_9 + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
    }
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_10 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_11 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_12 = (mf_K / 8);
    int kw_4 = t_10;
    bool k_ok_4 = ((kw_4 / 8) < t_11);
    unsigned words_1[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 4) {
      int rows_4 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_5 = (t_10 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_5 = ((kw_5 / 8) < t_11);
      bool mask_3 = ((rows_4 < mf_N) & k_ok_5);
      if (mask_3) {
        words_1[k] = ((wu_ptr + (rows_4 * t_12)) + kw_5)[0];
        words_1[(k + 1)] = ((wu_ptr + (rows_4 * t_12)) + kw_5)[1];
        words_1[(k + 2)] = ((wu_ptr + (rows_4 * t_12)) + kw_5)[2];
        words_1[(k + 3)] = ((wu_ptr + (rows_4 * t_12)) + kw_5)[3];
      } else {
        words_1[k] = 0u;
        words_1[(k + 1)] = 0u;
        words_1[(k + 2)] = 0u;
        words_1[(k + 3)] = 0u;
      }
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q_1[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      unsigned t_13 = (words_1[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<unsigned>(((k % 8) * 4)));
      unsigned t_14 = (t_13 & 15u);
      q_1[k] = static_cast<float>(t_14);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_15 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bool mask_3 = ((rows < mf_N) & k_ok_4);
    float scale_1[8];
    float bias_1[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 4) {
      int rows_5 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_6 = (t_10 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_4 = ((rows_5 * t_15) + (kw_6 / 8));
      bool k_ok_6 = ((kw_6 / 8) < t_11);
      bool mask_4 = ((rows_5 < mf_N) & k_ok_6);
      __half t_16_0 = (mask_4 ? (su_ptr + groups_4)[0] : __float2half(0.0f));
      __half t_16_1 = t_16_0;
      __half t_16_2 = t_16_0;
      __half t_16_3 = t_16_0;
      scale_1[k] = static_cast<float>(t_16_0);
      scale_1[(k + 1)] = static_cast<float>(t_16_1);
      scale_1[(k + 2)] = static_cast<float>(t_16_2);
      scale_1[(k + 3)] = static_cast<float>(t_16_3);
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      int rows_6 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_7 = (t_10 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_5 = ((rows_6 * t_15) + (kw_7 / 8));
      bool k_ok_7 = ((kw_7 / 8) < t_11);
      bool mask_5 = ((rows_6 < mf_N) & k_ok_7);
      __half t_17_0 = (mask_5 ? (bu_ptr + groups_5)[0] : __float2half(0.0f));
      __half t_17_1 = t_17_0;
      __half t_17_2 = t_17_0;
      __half t_17_3 = t_17_0;
      bias_1[k] = static_cast<float>(t_17_0);
      bias_1[(k + 1)] = static_cast<float>(t_17_1);
      bias_1[(k + 2)] = static_cast<float>(t_17_2);
      bias_1[(k + 3)] = static_cast<float>(t_17_3);
    }
    // 64: return q * scale + bias, kw, k_ok
    float wu[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      float t_18 = (q_1[k] * scale_1[(((k / 32) * 4) + ((k / 8) % 4))]);
      wu[k] = (t_18 + bias_1[(((k / 32) * 4) + ((k / 8) % 4))]);
    }
    // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
    // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
    __half t_19[4];
    int kw_8 = (t_10 + ((int(threadIdx.x / 32u) * 16) + (int(threadIdx.x % 32u) / 2)));
    int offs_1 = ((kw_8 * 8) + ((int(threadIdx.x % 32u) % 2) * 4));
    bool k_ok_8 = ((kw_8 / 8) < t_11);
    if (k_ok_8) {
      t_19[0] = (x_ptr + offs_1)[0];
      t_19[1] = (x_ptr + offs_1)[1];
      t_19[2] = (x_ptr + offs_1)[2];
      t_19[3] = (x_ptr + offs_1)[3];
    } else {
      t_19[0] = __float2half(0.0f);
      t_19[1] = __float2half(0.0f);
      t_19[2] = __float2half(0.0f);
      t_19[3] = __float2half(0.0f);
    }
    float x[4];
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      x[k] = static_cast<float>(t_19[k]);
    }
    // 302: gate += tl.sum(wg * x, axis=2)
    __syncthreads();
    *reinterpret_cast<mf_vec<4, float>*>((x_1_smem + ((((int(threadIdx.x / 32u) * 16) + (int(threadIdx.x % 32u) / 2)) * 8) + ((int(threadIdx.x % 32u) % 2) * 4)))) = mf_vec<4, float>{{x[0], x[1], x[2], x[3]}};
    __syncthreads();
    float t_20[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      t_20[k] = (wg[k] * x_1_smem[(((((int(threadIdx.x % 32u) % 16) * 4) + ((k / 8) % 4)) * 8) + (k % 8))]);
    }
    float gate_2[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float acc = t_20[(((k / 4) * 32) + ((k % 4) * 8))];
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
      acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
      gate_2[k] = (gate[k] + acc);
    }
    // 303: up += tl.sum(wu * x, axis=2)
    float t_21[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      t_21[k] = (wu[k] * x_1_smem[(((((int(threadIdx.x % 32u) % 16) * 4) + ((k / 8) % 4)) * 8) + (k % 8))]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float acc_1 = t_21[(((k / 4) * 32) + ((k % 4) * 8))];
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
      acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
      float up_2 = (up[k] + acc_1);
      float gate_3 = gate_2[k];
      float up_3 = up_2;
      gate[k] = gate_3;
      up[k] = up_3;
    }
  }
  // 304: g = tl.sum(gate, axis=1)
  float g[2];
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    g[k] = gate[(k * 4)];
    g[k] = (g[k] + gate[((k * 4) + 1)]);
    g[k] = (g[k] + gate[((k * 4) + 2)]);
    g[k] = (g[k] + gate[((k * 4) + 3)]);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner = __shfl_xor_sync(0xffffffffu, g[k], 1);
    g[k] = (g[k] + partner);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_1 = __shfl_xor_sync(0xffffffffu, g[k], 2);
    g[k] = (g[k] + partner_1);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_2 = __shfl_xor_sync(0xffffffffu, g[k], 4);
    g[k] = (g[k] + partner_2);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_3 = __shfl_xor_sync(0xffffffffu, g[k], 8);
    g[k] = (g[k] + partner_3);
  }
  // 305: u = tl.sum(up, axis=1)
  float u[2];
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    u[k] = up[(k * 4)];
    u[k] = (u[k] + up[((k * 4) + 1)]);
    u[k] = (u[k] + up[((k * 4) + 2)]);
    u[k] = (u[k] + up[((k * 4) + 3)]);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_4 = __shfl_xor_sync(0xffffffffu, u[k], 1);
    u[k] = (u[k] + partner_4);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_5 = __shfl_xor_sync(0xffffffffu, u[k], 2);
    u[k] = (u[k] + partner_5);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_6 = __shfl_xor_sync(0xffffffffu, u[k], 4);
    u[k] = (u[k] + partner_6);
  }
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float partner_7 = __shfl_xor_sync(0xffffffffu, u[k], 8);
    u[k] = (u[k] + partner_7);
  }
  // 310: tl.store(out_ptr + rows, g * tl.sigmoid(g) * u, mask=rows < N)
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float t_22 = mf_sigmoid(g[k]);
    float t_23 = (g[k] * t_22);
    float t_24 = (t_23 * u[k]);
    __half t_25 = mf_cast<__half>(t_24);
    int rows = (t + (((k * 4) * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
    if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows < mf_N))) {
      *((out_ptr + rows)) = t_25;
    }
  }
}
