
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

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_n_cols = n_cols[0];
const auto mf_row_stride = row_stride[0];
float* acc_smem = reinterpret_cast<float*>(mf_shared + 0);
float* acc_1_smem = reinterpret_cast<float*>(mf_shared + 32);
float* row_max_smem = reinterpret_cast<float*>(mf_shared + 64);
float* row_sum_smem = reinterpret_cast<float*>(mf_shared + 96);
if ((mf_is_aligned(out_ptr, 16) && mf_is_aligned(x_ptr, 16))) {
  // 69: row = tl.program_id(0)
  // 70: base = row * row_stride
  int base = (int(blockIdx.x) * mf_row_stride);
  // 71: if n_cols <= BLOCK:  # the row fits one block: read it once and keep it (the loops below read it twice)
  bool t = (mf_n_cols <= 4096);
  if (t) {
    // 72: offs = tl.arange(0, BLOCK)
    // 73: mask = offs < n_cols
    // 74: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_1 = (x_ptr + base);
    __half t_2[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_1 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_1 < mf_n_cols);
      {
        mf_vec<8, __half> mf_v{{__float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u))}};
        mf_load_masked(mf_v, (t_1 + offs_1), mask);
        t_2[k] = mf_v.v[0];
        t_2[(k + 1)] = mf_v.v[1];
        t_2[(k + 2)] = mf_v.v[2];
        t_2[(k + 3)] = mf_v.v[3];
        t_2[(k + 4)] = mf_v.v[4];
        t_2[(k + 5)] = mf_v.v[5];
        t_2[(k + 6)] = mf_v.v[6];
        t_2[(k + 7)] = mf_v.v[7];
      }
    }
    float x[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      x[k] = static_cast<float>(t_2[k]);
    }
    // 75: e = tl.exp(x - tl.max(x, axis=0))
    float acc[1];
    acc[0] = x[0];
    acc[0] = fmaxf(acc[0], x[1]);
    acc[0] = fmaxf(acc[0], x[2]);
    acc[0] = fmaxf(acc[0], x[3]);
    acc[0] = fmaxf(acc[0], x[4]);
    acc[0] = fmaxf(acc[0], x[5]);
    acc[0] = fmaxf(acc[0], x[6]);
    acc[0] = fmaxf(acc[0], x[7]);
    acc[0] = fmaxf(acc[0], x[8]);
    acc[0] = fmaxf(acc[0], x[9]);
    acc[0] = fmaxf(acc[0], x[10]);
    acc[0] = fmaxf(acc[0], x[11]);
    acc[0] = fmaxf(acc[0], x[12]);
    acc[0] = fmaxf(acc[0], x[13]);
    acc[0] = fmaxf(acc[0], x[14]);
    acc[0] = fmaxf(acc[0], x[15]);
    float partner = __shfl_xor_sync(0xffffffffu, acc[0], 1);
    acc[0] = fmaxf(acc[0], partner);
    float partner_1 = __shfl_xor_sync(0xffffffffu, acc[0], 2);
    acc[0] = fmaxf(acc[0], partner_1);
    float partner_2 = __shfl_xor_sync(0xffffffffu, acc[0], 4);
    acc[0] = fmaxf(acc[0], partner_2);
    float partner_3 = __shfl_xor_sync(0xffffffffu, acc[0], 8);
    acc[0] = fmaxf(acc[0], partner_3);
    float partner_4 = __shfl_xor_sync(0xffffffffu, acc[0], 16);
    acc[0] = fmaxf(acc[0], partner_4);
    __syncthreads();
    if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
      acc_smem[int(threadIdx.x / 32u)] = acc[0];
    }
    __syncthreads();
    acc[0] = acc_smem[0];
    acc[0] = fmaxf(acc[0], acc_smem[1]);
    acc[0] = fmaxf(acc[0], acc_smem[2]);
    acc[0] = fmaxf(acc[0], acc_smem[3]);
    acc[0] = fmaxf(acc[0], acc_smem[4]);
    acc[0] = fmaxf(acc[0], acc_smem[5]);
    acc[0] = fmaxf(acc[0], acc_smem[6]);
    acc[0] = fmaxf(acc[0], acc_smem[7]);
    float t_3 = acc[0];
    float e[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      e[k] = mf_exp2(fmaf(x[k], 1.4426950408889634f, (-(t_3 * 1.4426950408889634f))));
    }
    // 76: tl.store(out_ptr + base + offs, e / tl.sum(e, axis=0), mask=mask)
    decltype(out_ptr) t_4 = (out_ptr + base);
    float acc_1[1];
    acc_1[0] = e[0];
    acc_1[0] = (acc_1[0] + e[1]);
    acc_1[0] = (acc_1[0] + e[2]);
    acc_1[0] = (acc_1[0] + e[3]);
    acc_1[0] = (acc_1[0] + e[4]);
    acc_1[0] = (acc_1[0] + e[5]);
    acc_1[0] = (acc_1[0] + e[6]);
    acc_1[0] = (acc_1[0] + e[7]);
    acc_1[0] = (acc_1[0] + e[8]);
    acc_1[0] = (acc_1[0] + e[9]);
    acc_1[0] = (acc_1[0] + e[10]);
    acc_1[0] = (acc_1[0] + e[11]);
    acc_1[0] = (acc_1[0] + e[12]);
    acc_1[0] = (acc_1[0] + e[13]);
    acc_1[0] = (acc_1[0] + e[14]);
    acc_1[0] = (acc_1[0] + e[15]);
    float partner_5 = __shfl_xor_sync(0xffffffffu, acc_1[0], 1);
    acc_1[0] = (acc_1[0] + partner_5);
    float partner_6 = __shfl_xor_sync(0xffffffffu, acc_1[0], 2);
    acc_1[0] = (acc_1[0] + partner_6);
    float partner_7 = __shfl_xor_sync(0xffffffffu, acc_1[0], 4);
    acc_1[0] = (acc_1[0] + partner_7);
    float partner_8 = __shfl_xor_sync(0xffffffffu, acc_1[0], 8);
    acc_1[0] = (acc_1[0] + partner_8);
    float partner_9 = __shfl_xor_sync(0xffffffffu, acc_1[0], 16);
    acc_1[0] = (acc_1[0] + partner_9);
    __syncthreads();
    if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
      acc_1_smem[int(threadIdx.x / 32u)] = acc_1[0];
    }
    __syncthreads();
    acc_1[0] = acc_1_smem[0];
    acc_1[0] = (acc_1[0] + acc_1_smem[1]);
    acc_1[0] = (acc_1[0] + acc_1_smem[2]);
    acc_1[0] = (acc_1[0] + acc_1_smem[3]);
    acc_1[0] = (acc_1[0] + acc_1_smem[4]);
    acc_1[0] = (acc_1[0] + acc_1_smem[5]);
    acc_1[0] = (acc_1[0] + acc_1_smem[6]);
    acc_1[0] = (acc_1[0] + acc_1_smem[7]);
    float t_5 = acc_1[0];
    float t_6[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_6[k] = mf_fdiv(e[k], t_5);
    }
    __half t_7[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_7[k] = mf_cast<__half>(t_6[k]);
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_2 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_2 < mf_n_cols);
      if (mask) {
        *reinterpret_cast<mf_vec<8, __half>*>((t_4 + offs_2)) = mf_vec<8, __half>{{t_7[k], t_7[(k + 1)], t_7[(k + 2)], t_7[(k + 3)], t_7[(k + 4)], t_7[(k + 5)], t_7[(k + 6)], t_7[(k + 7)]}};
      }
    }
    // 77: return
    return;
  }
  // 80: m = tl.full((BLOCK,), -float("inf"), tl.float32)
  // 81: s = tl.zeros((BLOCK,), dtype=tl.float32)
  // 82: for start in range(0, n_cols, BLOCK):
  float s[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float s_1 = 0.0f;
    s[k] = s_1;
  }
  float m[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float m_1 = __uint_as_float(0xff800000u);
    m[k] = m_1;
  }
  for (int start = 0; (start < mf_n_cols); start += 4096) {
    // 83: offs = start + tl.arange(0, BLOCK)
    // 84: x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_8 = (x_ptr + base);
    __half t_9[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_4 = (start + ((k * 256) + (int(threadIdx.x) * 8)));
      {
        mf_vec<8, __half> mf_v{{__float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u))}};
        mf_load_masked(mf_v, (t_8 + offs_4), (offs_4 < mf_n_cols));
        t_9[k] = mf_v.v[0];
        t_9[(k + 1)] = mf_v.v[1];
        t_9[(k + 2)] = mf_v.v[2];
        t_9[(k + 3)] = mf_v.v[3];
        t_9[(k + 4)] = mf_v.v[4];
        t_9[(k + 5)] = mf_v.v[5];
        t_9[(k + 6)] = mf_v.v[6];
        t_9[(k + 7)] = mf_v.v[7];
      }
    }
    float x_1[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      x_1[k] = static_cast<float>(t_9[k]);
    }
    // 85: m_new = tl.maximum(m, x)
    float m_new[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      m_new[k] = fmaxf(m[k], x_1[k]);
    }
    // 86: s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
    bool t_10[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_10[k] = (m_new[k] == m[k]);
    }
    float t_11[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_11[k] = (m[k] - m_new[k]);
    }
    float t_12[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_12[k] = (t_10[k] ? 0.0f : t_11[k]);
    }
    float t_13[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_13[k] = mf_exp(t_12[k]);
    }
    float t_14[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_14[k] = (s[k] * t_13[k]);
    }
    bool t_15[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_15[k] = (x_1[k] == m_new[k]);
    }
    float t_16[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_16[k] = (x_1[k] - m_new[k]);
    }
    float t_17[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_17[k] = (t_15[k] ? 0.0f : t_16[k]);
    }
    float t_18[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_18[k] = mf_exp(t_17[k]);
    }
    float s_2[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      s_2[k] = (t_14[k] + t_18[k]);
    }
    float s_3[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      s_3[k] = s_2[k];
    }
    float m_new_1[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      m_new_1[k] = m_new[k];
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      s[k] = s_3[k];
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      m[k] = m_new_1[k];
    }
  }
  // 88: row_max = tl.max(m, axis=0)
  float row_max[1];
  row_max[0] = m[0];
  row_max[0] = fmaxf(row_max[0], m[1]);
  row_max[0] = fmaxf(row_max[0], m[2]);
  row_max[0] = fmaxf(row_max[0], m[3]);
  row_max[0] = fmaxf(row_max[0], m[4]);
  row_max[0] = fmaxf(row_max[0], m[5]);
  row_max[0] = fmaxf(row_max[0], m[6]);
  row_max[0] = fmaxf(row_max[0], m[7]);
  row_max[0] = fmaxf(row_max[0], m[8]);
  row_max[0] = fmaxf(row_max[0], m[9]);
  row_max[0] = fmaxf(row_max[0], m[10]);
  row_max[0] = fmaxf(row_max[0], m[11]);
  row_max[0] = fmaxf(row_max[0], m[12]);
  row_max[0] = fmaxf(row_max[0], m[13]);
  row_max[0] = fmaxf(row_max[0], m[14]);
  row_max[0] = fmaxf(row_max[0], m[15]);
  float partner_10 = __shfl_xor_sync(0xffffffffu, row_max[0], 1);
  row_max[0] = fmaxf(row_max[0], partner_10);
  float partner_11 = __shfl_xor_sync(0xffffffffu, row_max[0], 2);
  row_max[0] = fmaxf(row_max[0], partner_11);
  float partner_12 = __shfl_xor_sync(0xffffffffu, row_max[0], 4);
  row_max[0] = fmaxf(row_max[0], partner_12);
  float partner_13 = __shfl_xor_sync(0xffffffffu, row_max[0], 8);
  row_max[0] = fmaxf(row_max[0], partner_13);
  float partner_14 = __shfl_xor_sync(0xffffffffu, row_max[0], 16);
  row_max[0] = fmaxf(row_max[0], partner_14);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    row_max_smem[int(threadIdx.x / 32u)] = row_max[0];
  }
  __syncthreads();
  row_max[0] = row_max_smem[0];
  row_max[0] = fmaxf(row_max[0], row_max_smem[1]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[2]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[3]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[4]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[5]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[6]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[7]);
  float row_max_1 = row_max[0];
  // 89: row_sum = tl.sum(s * tl.exp(tl.where(m == row_max, 0.0, m - row_max)), axis=0)
  bool t_19[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_19[k] = (m[k] == row_max_1);
  }
  float t_20[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_20[k] = (m[k] - row_max_1);
  }
  float t_21[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_21[k] = (t_19[k] ? 0.0f : t_20[k]);
  }
  float t_22[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_22[k] = mf_exp(t_21[k]);
  }
  float t_23[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_23[k] = (s[k] * t_22[k]);
  }
  float row_sum[1];
  row_sum[0] = t_23[0];
  row_sum[0] = (row_sum[0] + t_23[1]);
  row_sum[0] = (row_sum[0] + t_23[2]);
  row_sum[0] = (row_sum[0] + t_23[3]);
  row_sum[0] = (row_sum[0] + t_23[4]);
  row_sum[0] = (row_sum[0] + t_23[5]);
  row_sum[0] = (row_sum[0] + t_23[6]);
  row_sum[0] = (row_sum[0] + t_23[7]);
  row_sum[0] = (row_sum[0] + t_23[8]);
  row_sum[0] = (row_sum[0] + t_23[9]);
  row_sum[0] = (row_sum[0] + t_23[10]);
  row_sum[0] = (row_sum[0] + t_23[11]);
  row_sum[0] = (row_sum[0] + t_23[12]);
  row_sum[0] = (row_sum[0] + t_23[13]);
  row_sum[0] = (row_sum[0] + t_23[14]);
  row_sum[0] = (row_sum[0] + t_23[15]);
  float partner_15 = __shfl_xor_sync(0xffffffffu, row_sum[0], 1);
  row_sum[0] = (row_sum[0] + partner_15);
  float partner_16 = __shfl_xor_sync(0xffffffffu, row_sum[0], 2);
  row_sum[0] = (row_sum[0] + partner_16);
  float partner_17 = __shfl_xor_sync(0xffffffffu, row_sum[0], 4);
  row_sum[0] = (row_sum[0] + partner_17);
  float partner_18 = __shfl_xor_sync(0xffffffffu, row_sum[0], 8);
  row_sum[0] = (row_sum[0] + partner_18);
  float partner_19 = __shfl_xor_sync(0xffffffffu, row_sum[0], 16);
  row_sum[0] = (row_sum[0] + partner_19);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    row_sum_smem[int(threadIdx.x / 32u)] = row_sum[0];
  }
  __syncthreads();
  row_sum[0] = row_sum_smem[0];
  row_sum[0] = (row_sum[0] + row_sum_smem[1]);
  row_sum[0] = (row_sum[0] + row_sum_smem[2]);
  row_sum[0] = (row_sum[0] + row_sum_smem[3]);
  row_sum[0] = (row_sum[0] + row_sum_smem[4]);
  row_sum[0] = (row_sum[0] + row_sum_smem[5]);
  row_sum[0] = (row_sum[0] + row_sum_smem[6]);
  row_sum[0] = (row_sum[0] + row_sum_smem[7]);
  float row_sum_1 = row_sum[0];
  // 90: for start in range(0, n_cols, BLOCK):
  for (int start_1 = 0; (start_1 < mf_n_cols); start_1 += 4096) {
    // 91: offs = start + tl.arange(0, BLOCK)
    // 92: mask = offs < n_cols
    // 93: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_24 = (x_ptr + base);
    __half t_25[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_6 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1 = (offs_6 < mf_n_cols);
      {
        mf_vec<8, __half> mf_v{{__float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u))}};
        mf_load_masked(mf_v, (t_24 + offs_6), mask_1);
        t_25[k] = mf_v.v[0];
        t_25[(k + 1)] = mf_v.v[1];
        t_25[(k + 2)] = mf_v.v[2];
        t_25[(k + 3)] = mf_v.v[3];
        t_25[(k + 4)] = mf_v.v[4];
        t_25[(k + 5)] = mf_v.v[5];
        t_25[(k + 6)] = mf_v.v[6];
        t_25[(k + 7)] = mf_v.v[7];
      }
    }
    float x_2[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      x_2[k] = static_cast<float>(t_25[k]);
    }
    // 94: tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)
    decltype(out_ptr) t_26 = (out_ptr + base);
    float t_27[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_27[k] = mf_exp2(fmaf(x_2[k], 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
    }
    float t_28[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_28[k] = mf_fdiv(t_27[k], row_sum_1);
    }
    __half t_29[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_29[k] = mf_cast<__half>(t_28[k]);
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_7 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1 = (offs_7 < mf_n_cols);
      if (mask_1) {
        *reinterpret_cast<mf_vec<8, __half>*>((t_26 + offs_7)) = mf_vec<8, __half>{{t_29[k], t_29[(k + 1)], t_29[(k + 2)], t_29[(k + 3)], t_29[(k + 4)], t_29[(k + 5)], t_29[(k + 6)], t_29[(k + 7)]}};
      }
    }
  }
} else {
  // 69: row = tl.program_id(0)
  // 70: base = row * row_stride
  int base = (int(blockIdx.x) * mf_row_stride);
  // 71: if n_cols <= BLOCK:  # the row fits one block: read it once and keep it (the loops below read it twice)
  bool t = (mf_n_cols <= 4096);
  if (t) {
    // 72: offs = tl.arange(0, BLOCK)
    // 73: mask = offs < n_cols
    // 74: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_1 = (x_ptr + base);
    __half t_2[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_1 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_1 < mf_n_cols);
      if (mask) {
        t_2[k] = (t_1 + offs_1)[0];
        t_2[(k + 1)] = (t_1 + offs_1)[1];
        t_2[(k + 2)] = (t_1 + offs_1)[2];
        t_2[(k + 3)] = (t_1 + offs_1)[3];
        t_2[(k + 4)] = (t_1 + offs_1)[4];
        t_2[(k + 5)] = (t_1 + offs_1)[5];
        t_2[(k + 6)] = (t_1 + offs_1)[6];
        t_2[(k + 7)] = (t_1 + offs_1)[7];
      } else {
        t_2[k] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 1)] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 2)] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 3)] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 4)] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 5)] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 6)] = __float2half(__uint_as_float(0xff800000u));
        t_2[(k + 7)] = __float2half(__uint_as_float(0xff800000u));
      }
    }
    float x[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      x[k] = static_cast<float>(t_2[k]);
    }
    // 75: e = tl.exp(x - tl.max(x, axis=0))
    float acc[1];
    acc[0] = x[0];
    acc[0] = fmaxf(acc[0], x[1]);
    acc[0] = fmaxf(acc[0], x[2]);
    acc[0] = fmaxf(acc[0], x[3]);
    acc[0] = fmaxf(acc[0], x[4]);
    acc[0] = fmaxf(acc[0], x[5]);
    acc[0] = fmaxf(acc[0], x[6]);
    acc[0] = fmaxf(acc[0], x[7]);
    acc[0] = fmaxf(acc[0], x[8]);
    acc[0] = fmaxf(acc[0], x[9]);
    acc[0] = fmaxf(acc[0], x[10]);
    acc[0] = fmaxf(acc[0], x[11]);
    acc[0] = fmaxf(acc[0], x[12]);
    acc[0] = fmaxf(acc[0], x[13]);
    acc[0] = fmaxf(acc[0], x[14]);
    acc[0] = fmaxf(acc[0], x[15]);
    float partner = __shfl_xor_sync(0xffffffffu, acc[0], 1);
    acc[0] = fmaxf(acc[0], partner);
    float partner_1 = __shfl_xor_sync(0xffffffffu, acc[0], 2);
    acc[0] = fmaxf(acc[0], partner_1);
    float partner_2 = __shfl_xor_sync(0xffffffffu, acc[0], 4);
    acc[0] = fmaxf(acc[0], partner_2);
    float partner_3 = __shfl_xor_sync(0xffffffffu, acc[0], 8);
    acc[0] = fmaxf(acc[0], partner_3);
    float partner_4 = __shfl_xor_sync(0xffffffffu, acc[0], 16);
    acc[0] = fmaxf(acc[0], partner_4);
    __syncthreads();
    if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
      acc_smem[int(threadIdx.x / 32u)] = acc[0];
    }
    __syncthreads();
    acc[0] = acc_smem[0];
    acc[0] = fmaxf(acc[0], acc_smem[1]);
    acc[0] = fmaxf(acc[0], acc_smem[2]);
    acc[0] = fmaxf(acc[0], acc_smem[3]);
    acc[0] = fmaxf(acc[0], acc_smem[4]);
    acc[0] = fmaxf(acc[0], acc_smem[5]);
    acc[0] = fmaxf(acc[0], acc_smem[6]);
    acc[0] = fmaxf(acc[0], acc_smem[7]);
    float t_3 = acc[0];
    float e[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      e[k] = mf_exp2(fmaf(x[k], 1.4426950408889634f, (-(t_3 * 1.4426950408889634f))));
    }
    // 76: tl.store(out_ptr + base + offs, e / tl.sum(e, axis=0), mask=mask)
    decltype(out_ptr) t_4 = (out_ptr + base);
    float acc_1[1];
    acc_1[0] = e[0];
    acc_1[0] = (acc_1[0] + e[1]);
    acc_1[0] = (acc_1[0] + e[2]);
    acc_1[0] = (acc_1[0] + e[3]);
    acc_1[0] = (acc_1[0] + e[4]);
    acc_1[0] = (acc_1[0] + e[5]);
    acc_1[0] = (acc_1[0] + e[6]);
    acc_1[0] = (acc_1[0] + e[7]);
    acc_1[0] = (acc_1[0] + e[8]);
    acc_1[0] = (acc_1[0] + e[9]);
    acc_1[0] = (acc_1[0] + e[10]);
    acc_1[0] = (acc_1[0] + e[11]);
    acc_1[0] = (acc_1[0] + e[12]);
    acc_1[0] = (acc_1[0] + e[13]);
    acc_1[0] = (acc_1[0] + e[14]);
    acc_1[0] = (acc_1[0] + e[15]);
    float partner_5 = __shfl_xor_sync(0xffffffffu, acc_1[0], 1);
    acc_1[0] = (acc_1[0] + partner_5);
    float partner_6 = __shfl_xor_sync(0xffffffffu, acc_1[0], 2);
    acc_1[0] = (acc_1[0] + partner_6);
    float partner_7 = __shfl_xor_sync(0xffffffffu, acc_1[0], 4);
    acc_1[0] = (acc_1[0] + partner_7);
    float partner_8 = __shfl_xor_sync(0xffffffffu, acc_1[0], 8);
    acc_1[0] = (acc_1[0] + partner_8);
    float partner_9 = __shfl_xor_sync(0xffffffffu, acc_1[0], 16);
    acc_1[0] = (acc_1[0] + partner_9);
    __syncthreads();
    if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
      acc_1_smem[int(threadIdx.x / 32u)] = acc_1[0];
    }
    __syncthreads();
    acc_1[0] = acc_1_smem[0];
    acc_1[0] = (acc_1[0] + acc_1_smem[1]);
    acc_1[0] = (acc_1[0] + acc_1_smem[2]);
    acc_1[0] = (acc_1[0] + acc_1_smem[3]);
    acc_1[0] = (acc_1[0] + acc_1_smem[4]);
    acc_1[0] = (acc_1[0] + acc_1_smem[5]);
    acc_1[0] = (acc_1[0] + acc_1_smem[6]);
    acc_1[0] = (acc_1[0] + acc_1_smem[7]);
    float t_5 = acc_1[0];
    float t_6[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_6[k] = mf_fdiv(e[k], t_5);
    }
    __half t_7[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_7[k] = mf_cast<__half>(t_6[k]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_2 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_2 < mf_n_cols);
      if (mask) {
        (t_4 + offs_2)[0] = t_7[k];
        (t_4 + offs_2)[1] = t_7[(k + 1)];
        (t_4 + offs_2)[2] = t_7[(k + 2)];
        (t_4 + offs_2)[3] = t_7[(k + 3)];
        (t_4 + offs_2)[4] = t_7[(k + 4)];
        (t_4 + offs_2)[5] = t_7[(k + 5)];
        (t_4 + offs_2)[6] = t_7[(k + 6)];
        (t_4 + offs_2)[7] = t_7[(k + 7)];
      }
    }
    // 77: return
    return;
  }
  // 80: m = tl.full((BLOCK,), -float("inf"), tl.float32)
  // 81: s = tl.zeros((BLOCK,), dtype=tl.float32)
  // 82: for start in range(0, n_cols, BLOCK):
  float s[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    float s_1 = 0.0f;
    s[k] = s_1;
  }
  float m[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    float m_1 = __uint_as_float(0xff800000u);
    m[k] = m_1;
  }
  for (int start = 0; (start < mf_n_cols); start += 4096) {
    // 83: offs = start + tl.arange(0, BLOCK)
    // 84: x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_8 = (x_ptr + base);
    __half t_9[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_4 = (start + ((k * 256) + (int(threadIdx.x) * 8)));
      if ((offs_4 < mf_n_cols)) {
        t_9[k] = (t_8 + offs_4)[0];
        t_9[(k + 1)] = (t_8 + offs_4)[1];
        t_9[(k + 2)] = (t_8 + offs_4)[2];
        t_9[(k + 3)] = (t_8 + offs_4)[3];
        t_9[(k + 4)] = (t_8 + offs_4)[4];
        t_9[(k + 5)] = (t_8 + offs_4)[5];
        t_9[(k + 6)] = (t_8 + offs_4)[6];
        t_9[(k + 7)] = (t_8 + offs_4)[7];
      } else {
        t_9[k] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 1)] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 2)] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 3)] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 4)] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 5)] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 6)] = __float2half(__uint_as_float(0xff800000u));
        t_9[(k + 7)] = __float2half(__uint_as_float(0xff800000u));
      }
    }
    float x_1[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      x_1[k] = static_cast<float>(t_9[k]);
    }
    // 85: m_new = tl.maximum(m, x)
    float m_new[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      m_new[k] = fmaxf(m[k], x_1[k]);
    }
    // 86: s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
    bool t_10[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_10[k] = (m_new[k] == m[k]);
    }
    float t_11[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_11[k] = (m[k] - m_new[k]);
    }
    float t_12[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_12[k] = (t_10[k] ? 0.0f : t_11[k]);
    }
    float t_13[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_13[k] = mf_exp(t_12[k]);
    }
    float t_14[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_14[k] = (s[k] * t_13[k]);
    }
    bool t_15[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_15[k] = (x_1[k] == m_new[k]);
    }
    float t_16[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_16[k] = (x_1[k] - m_new[k]);
    }
    float t_17[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_17[k] = (t_15[k] ? 0.0f : t_16[k]);
    }
    float t_18[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_18[k] = mf_exp(t_17[k]);
    }
    float s_2[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      s_2[k] = (t_14[k] + t_18[k]);
    }
    float s_3[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      s_3[k] = s_2[k];
    }
    float m_new_1[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      m_new_1[k] = m_new[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      s[k] = s_3[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      m[k] = m_new_1[k];
    }
  }
  // 88: row_max = tl.max(m, axis=0)
  float row_max[1];
  row_max[0] = m[0];
  row_max[0] = fmaxf(row_max[0], m[1]);
  row_max[0] = fmaxf(row_max[0], m[2]);
  row_max[0] = fmaxf(row_max[0], m[3]);
  row_max[0] = fmaxf(row_max[0], m[4]);
  row_max[0] = fmaxf(row_max[0], m[5]);
  row_max[0] = fmaxf(row_max[0], m[6]);
  row_max[0] = fmaxf(row_max[0], m[7]);
  row_max[0] = fmaxf(row_max[0], m[8]);
  row_max[0] = fmaxf(row_max[0], m[9]);
  row_max[0] = fmaxf(row_max[0], m[10]);
  row_max[0] = fmaxf(row_max[0], m[11]);
  row_max[0] = fmaxf(row_max[0], m[12]);
  row_max[0] = fmaxf(row_max[0], m[13]);
  row_max[0] = fmaxf(row_max[0], m[14]);
  row_max[0] = fmaxf(row_max[0], m[15]);
  float partner_10 = __shfl_xor_sync(0xffffffffu, row_max[0], 1);
  row_max[0] = fmaxf(row_max[0], partner_10);
  float partner_11 = __shfl_xor_sync(0xffffffffu, row_max[0], 2);
  row_max[0] = fmaxf(row_max[0], partner_11);
  float partner_12 = __shfl_xor_sync(0xffffffffu, row_max[0], 4);
  row_max[0] = fmaxf(row_max[0], partner_12);
  float partner_13 = __shfl_xor_sync(0xffffffffu, row_max[0], 8);
  row_max[0] = fmaxf(row_max[0], partner_13);
  float partner_14 = __shfl_xor_sync(0xffffffffu, row_max[0], 16);
  row_max[0] = fmaxf(row_max[0], partner_14);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    row_max_smem[int(threadIdx.x / 32u)] = row_max[0];
  }
  __syncthreads();
  row_max[0] = row_max_smem[0];
  row_max[0] = fmaxf(row_max[0], row_max_smem[1]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[2]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[3]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[4]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[5]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[6]);
  row_max[0] = fmaxf(row_max[0], row_max_smem[7]);
  float row_max_1 = row_max[0];
  // 89: row_sum = tl.sum(s * tl.exp(tl.where(m == row_max, 0.0, m - row_max)), axis=0)
  bool t_19[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_19[k] = (m[k] == row_max_1);
  }
  float t_20[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_20[k] = (m[k] - row_max_1);
  }
  float t_21[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_21[k] = (t_19[k] ? 0.0f : t_20[k]);
  }
  float t_22[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_22[k] = mf_exp(t_21[k]);
  }
  float t_23[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_23[k] = (s[k] * t_22[k]);
  }
  float row_sum[1];
  row_sum[0] = t_23[0];
  row_sum[0] = (row_sum[0] + t_23[1]);
  row_sum[0] = (row_sum[0] + t_23[2]);
  row_sum[0] = (row_sum[0] + t_23[3]);
  row_sum[0] = (row_sum[0] + t_23[4]);
  row_sum[0] = (row_sum[0] + t_23[5]);
  row_sum[0] = (row_sum[0] + t_23[6]);
  row_sum[0] = (row_sum[0] + t_23[7]);
  row_sum[0] = (row_sum[0] + t_23[8]);
  row_sum[0] = (row_sum[0] + t_23[9]);
  row_sum[0] = (row_sum[0] + t_23[10]);
  row_sum[0] = (row_sum[0] + t_23[11]);
  row_sum[0] = (row_sum[0] + t_23[12]);
  row_sum[0] = (row_sum[0] + t_23[13]);
  row_sum[0] = (row_sum[0] + t_23[14]);
  row_sum[0] = (row_sum[0] + t_23[15]);
  float partner_15 = __shfl_xor_sync(0xffffffffu, row_sum[0], 1);
  row_sum[0] = (row_sum[0] + partner_15);
  float partner_16 = __shfl_xor_sync(0xffffffffu, row_sum[0], 2);
  row_sum[0] = (row_sum[0] + partner_16);
  float partner_17 = __shfl_xor_sync(0xffffffffu, row_sum[0], 4);
  row_sum[0] = (row_sum[0] + partner_17);
  float partner_18 = __shfl_xor_sync(0xffffffffu, row_sum[0], 8);
  row_sum[0] = (row_sum[0] + partner_18);
  float partner_19 = __shfl_xor_sync(0xffffffffu, row_sum[0], 16);
  row_sum[0] = (row_sum[0] + partner_19);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    row_sum_smem[int(threadIdx.x / 32u)] = row_sum[0];
  }
  __syncthreads();
  row_sum[0] = row_sum_smem[0];
  row_sum[0] = (row_sum[0] + row_sum_smem[1]);
  row_sum[0] = (row_sum[0] + row_sum_smem[2]);
  row_sum[0] = (row_sum[0] + row_sum_smem[3]);
  row_sum[0] = (row_sum[0] + row_sum_smem[4]);
  row_sum[0] = (row_sum[0] + row_sum_smem[5]);
  row_sum[0] = (row_sum[0] + row_sum_smem[6]);
  row_sum[0] = (row_sum[0] + row_sum_smem[7]);
  float row_sum_1 = row_sum[0];
  // 90: for start in range(0, n_cols, BLOCK):
  for (int start_1 = 0; (start_1 < mf_n_cols); start_1 += 4096) {
    // 91: offs = start + tl.arange(0, BLOCK)
    // 92: mask = offs < n_cols
    // 93: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_24 = (x_ptr + base);
    __half t_25[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_6 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1 = (offs_6 < mf_n_cols);
      if (mask_1) {
        t_25[k] = (t_24 + offs_6)[0];
        t_25[(k + 1)] = (t_24 + offs_6)[1];
        t_25[(k + 2)] = (t_24 + offs_6)[2];
        t_25[(k + 3)] = (t_24 + offs_6)[3];
        t_25[(k + 4)] = (t_24 + offs_6)[4];
        t_25[(k + 5)] = (t_24 + offs_6)[5];
        t_25[(k + 6)] = (t_24 + offs_6)[6];
        t_25[(k + 7)] = (t_24 + offs_6)[7];
      } else {
        t_25[k] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 1)] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 2)] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 3)] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 4)] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 5)] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 6)] = __float2half(__uint_as_float(0xff800000u));
        t_25[(k + 7)] = __float2half(__uint_as_float(0xff800000u));
      }
    }
    float x_2[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      x_2[k] = static_cast<float>(t_25[k]);
    }
    // 94: tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)
    decltype(out_ptr) t_26 = (out_ptr + base);
    float t_27[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_27[k] = mf_exp2(fmaf(x_2[k], 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
    }
    float t_28[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_28[k] = mf_fdiv(t_27[k], row_sum_1);
    }
    __half t_29[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_29[k] = mf_cast<__half>(t_28[k]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_7 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1 = (offs_7 < mf_n_cols);
      if (mask_1) {
        (t_26 + offs_7)[0] = t_29[k];
        (t_26 + offs_7)[1] = t_29[(k + 1)];
        (t_26 + offs_7)[2] = t_29[(k + 2)];
        (t_26 + offs_7)[3] = t_29[(k + 3)];
        (t_26 + offs_7)[4] = t_29[(k + 4)];
        (t_26 + offs_7)[5] = t_29[(k + 5)];
        (t_26 + offs_7)[6] = t_29[(k + 6)];
        (t_26 + offs_7)[7] = t_29[(k + 7)];
      }
    }
  }
}
