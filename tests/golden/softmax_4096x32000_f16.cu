
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
    float x[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_1 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_1 < mf_n_cols);
      __half t_2_0;
      __half t_2_1;
      __half t_2_2;
      __half t_2_3;
      __half t_2_4;
      __half t_2_5;
      __half t_2_6;
      __half t_2_7;
      {
        mf_vec<8, __half> mf_v{{__float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u))}};
        mf_load_masked(mf_v, (t_1 + offs_1), mask);
        t_2_0 = mf_v.v[0];
        t_2_1 = mf_v.v[1];
        t_2_2 = mf_v.v[2];
        t_2_3 = mf_v.v[3];
        t_2_4 = mf_v.v[4];
        t_2_5 = mf_v.v[5];
        t_2_6 = mf_v.v[6];
        t_2_7 = mf_v.v[7];
      }
      x[k] = static_cast<float>(t_2_0);
      x[(k + 1)] = static_cast<float>(t_2_1);
      x[(k + 2)] = static_cast<float>(t_2_2);
      x[(k + 3)] = static_cast<float>(t_2_3);
      x[(k + 4)] = static_cast<float>(t_2_4);
      x[(k + 5)] = static_cast<float>(t_2_5);
      x[(k + 6)] = static_cast<float>(t_2_6);
      x[(k + 7)] = static_cast<float>(t_2_7);
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
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      float t_6_0 = mf_fdiv(e[k], t_5);
      __half t_7_0 = mf_cast<__half>(t_6_0);
      float t_6_1 = mf_fdiv(e[(k + 1)], t_5);
      __half t_7_1 = mf_cast<__half>(t_6_1);
      float t_6_2 = mf_fdiv(e[(k + 2)], t_5);
      __half t_7_2 = mf_cast<__half>(t_6_2);
      float t_6_3 = mf_fdiv(e[(k + 3)], t_5);
      __half t_7_3 = mf_cast<__half>(t_6_3);
      float t_6_4 = mf_fdiv(e[(k + 4)], t_5);
      __half t_7_4 = mf_cast<__half>(t_6_4);
      float t_6_5 = mf_fdiv(e[(k + 5)], t_5);
      __half t_7_5 = mf_cast<__half>(t_6_5);
      float t_6_6 = mf_fdiv(e[(k + 6)], t_5);
      __half t_7_6 = mf_cast<__half>(t_6_6);
      float t_6_7 = mf_fdiv(e[(k + 7)], t_5);
      __half t_7_7 = mf_cast<__half>(t_6_7);
      int offs_2 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_2 < mf_n_cols);
      if (mask) {
        *reinterpret_cast<mf_vec<8, __half>*>((t_4 + offs_2)) = mf_vec<8, __half>{{t_7_0, t_7_1, t_7_2, t_7_3, t_7_4, t_7_5, t_7_6, t_7_7}};
      }
    }
    // 77: return
    return;
  }
  // 80: m = tl.full((BLOCK,), -float("inf"), tl.float32)
  // 81: s = tl.zeros((BLOCK,), dtype=tl.float32)
  // 82: for start in range(0, n_cols, BLOCK):
  float s[16];
  float m[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float s_1 = 0.0f;
    s[k] = s_1;
    float m_1 = __uint_as_float(0xff800000u);
    m[k] = m_1;
  }
  for (int start = 0; (start < mf_n_cols); start += 4096) {
    // 83: offs = start + tl.arange(0, BLOCK)
    // 84: x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_8 = (x_ptr + base);
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_4 = (start + ((k * 256) + (int(threadIdx.x) * 8)));
      __half t_9_0;
      __half t_9_1;
      __half t_9_2;
      __half t_9_3;
      __half t_9_4;
      __half t_9_5;
      __half t_9_6;
      __half t_9_7;
      {
        mf_vec<8, __half> mf_v{{__float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u))}};
        mf_load_masked(mf_v, (t_8 + offs_4), (offs_4 < mf_n_cols));
        t_9_0 = mf_v.v[0];
        t_9_1 = mf_v.v[1];
        t_9_2 = mf_v.v[2];
        t_9_3 = mf_v.v[3];
        t_9_4 = mf_v.v[4];
        t_9_5 = mf_v.v[5];
        t_9_6 = mf_v.v[6];
        t_9_7 = mf_v.v[7];
      }
      float x_1_0 = static_cast<float>(t_9_0);
      float x_1_1 = static_cast<float>(t_9_1);
      float x_1_2 = static_cast<float>(t_9_2);
      float x_1_3 = static_cast<float>(t_9_3);
      float x_1_4 = static_cast<float>(t_9_4);
      float x_1_5 = static_cast<float>(t_9_5);
      float x_1_6 = static_cast<float>(t_9_6);
      float x_1_7 = static_cast<float>(t_9_7);
      // 85: m_new = tl.maximum(m, x)
      float m_new_0 = fmaxf(m[k], x_1_0);
      float m_new_1_1 = fmaxf(m[(k + 1)], x_1_1);
      float m_new_2 = fmaxf(m[(k + 2)], x_1_2);
      float m_new_3 = fmaxf(m[(k + 3)], x_1_3);
      float m_new_4 = fmaxf(m[(k + 4)], x_1_4);
      float m_new_5 = fmaxf(m[(k + 5)], x_1_5);
      float m_new_6 = fmaxf(m[(k + 6)], x_1_6);
      float m_new_7 = fmaxf(m[(k + 7)], x_1_7);
      // 86: s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
      bool t_10_0 = (m_new_0 == m[k]);
      bool t_10_1 = (m_new_1_1 == m[(k + 1)]);
      bool t_10_2 = (m_new_2 == m[(k + 2)]);
      bool t_10_3 = (m_new_3 == m[(k + 3)]);
      bool t_10_4 = (m_new_4 == m[(k + 4)]);
      bool t_10_5 = (m_new_5 == m[(k + 5)]);
      bool t_10_6 = (m_new_6 == m[(k + 6)]);
      bool t_10_7 = (m_new_7 == m[(k + 7)]);
      float t_11_0 = (m[k] - m_new_0);
      float t_11_1 = (m[(k + 1)] - m_new_1_1);
      float t_11_2 = (m[(k + 2)] - m_new_2);
      float t_11_3 = (m[(k + 3)] - m_new_3);
      float t_11_4 = (m[(k + 4)] - m_new_4);
      float t_11_5 = (m[(k + 5)] - m_new_5);
      float t_11_6 = (m[(k + 6)] - m_new_6);
      float t_11_7 = (m[(k + 7)] - m_new_7);
      float t_12_0 = (t_10_0 ? 0.0f : t_11_0);
      float t_12_1 = (t_10_1 ? 0.0f : t_11_1);
      float t_12_2 = (t_10_2 ? 0.0f : t_11_2);
      float t_12_3 = (t_10_3 ? 0.0f : t_11_3);
      float t_12_4 = (t_10_4 ? 0.0f : t_11_4);
      float t_12_5 = (t_10_5 ? 0.0f : t_11_5);
      float t_12_6 = (t_10_6 ? 0.0f : t_11_6);
      float t_12_7 = (t_10_7 ? 0.0f : t_11_7);
      float t_13_0 = mf_exp(t_12_0);
      float t_13_1 = mf_exp(t_12_1);
      float t_13_2 = mf_exp(t_12_2);
      float t_13_3 = mf_exp(t_12_3);
      float t_13_4 = mf_exp(t_12_4);
      float t_13_5 = mf_exp(t_12_5);
      float t_13_6 = mf_exp(t_12_6);
      float t_13_7 = mf_exp(t_12_7);
      float t_14_0 = (s[k] * t_13_0);
      float t_14_1 = (s[(k + 1)] * t_13_1);
      float t_14_2 = (s[(k + 2)] * t_13_2);
      float t_14_3 = (s[(k + 3)] * t_13_3);
      float t_14_4 = (s[(k + 4)] * t_13_4);
      float t_14_5 = (s[(k + 5)] * t_13_5);
      float t_14_6 = (s[(k + 6)] * t_13_6);
      float t_14_7 = (s[(k + 7)] * t_13_7);
      bool t_15_0 = (x_1_0 == m_new_0);
      bool t_15_1 = (x_1_1 == m_new_1_1);
      bool t_15_2 = (x_1_2 == m_new_2);
      bool t_15_3 = (x_1_3 == m_new_3);
      bool t_15_4 = (x_1_4 == m_new_4);
      bool t_15_5 = (x_1_5 == m_new_5);
      bool t_15_6 = (x_1_6 == m_new_6);
      bool t_15_7 = (x_1_7 == m_new_7);
      float t_16_0 = (x_1_0 - m_new_0);
      float t_16_1 = (x_1_1 - m_new_1_1);
      float t_16_2 = (x_1_2 - m_new_2);
      float t_16_3 = (x_1_3 - m_new_3);
      float t_16_4 = (x_1_4 - m_new_4);
      float t_16_5 = (x_1_5 - m_new_5);
      float t_16_6 = (x_1_6 - m_new_6);
      float t_16_7 = (x_1_7 - m_new_7);
      float t_17_0 = (t_15_0 ? 0.0f : t_16_0);
      float t_17_1 = (t_15_1 ? 0.0f : t_16_1);
      float t_17_2 = (t_15_2 ? 0.0f : t_16_2);
      float t_17_3 = (t_15_3 ? 0.0f : t_16_3);
      float t_17_4 = (t_15_4 ? 0.0f : t_16_4);
      float t_17_5 = (t_15_5 ? 0.0f : t_16_5);
      float t_17_6 = (t_15_6 ? 0.0f : t_16_6);
      float t_17_7 = (t_15_7 ? 0.0f : t_16_7);
      float t_18_0 = mf_exp(t_17_0);
      float t_18_1 = mf_exp(t_17_1);
      float t_18_2 = mf_exp(t_17_2);
      float t_18_3 = mf_exp(t_17_3);
      float t_18_4 = mf_exp(t_17_4);
      float t_18_5 = mf_exp(t_17_5);
      float t_18_6 = mf_exp(t_17_6);
      float t_18_7 = mf_exp(t_17_7);
      float s_2_0 = (t_14_0 + t_18_0);
      float s_2_1 = (t_14_1 + t_18_1);
      float s_2_2 = (t_14_2 + t_18_2);
      float s_2_3 = (t_14_3 + t_18_3);
      float s_2_4 = (t_14_4 + t_18_4);
      float s_2_5 = (t_14_5 + t_18_5);
      float s_2_6 = (t_14_6 + t_18_6);
      float s_2_7 = (t_14_7 + t_18_7);
      float s_3_0 = s_2_0;
      float s_3_1 = s_2_1;
      float s_3_2 = s_2_2;
      float s_3_3 = s_2_3;
      float s_3_4 = s_2_4;
      float s_3_5 = s_2_5;
      float s_3_6 = s_2_6;
      float s_3_7 = s_2_7;
      float m_new_1_0 = m_new_0;
      float m_new_1_1_1 = m_new_1_1;
      float m_new_1_2 = m_new_2;
      float m_new_1_3 = m_new_3;
      float m_new_1_4 = m_new_4;
      float m_new_1_5 = m_new_5;
      float m_new_1_6 = m_new_6;
      float m_new_1_7 = m_new_7;
      s[k] = s_3_0;
      s[(k + 1)] = s_3_1;
      s[(k + 2)] = s_3_2;
      s[(k + 3)] = s_3_3;
      s[(k + 4)] = s_3_4;
      s[(k + 5)] = s_3_5;
      s[(k + 6)] = s_3_6;
      s[(k + 7)] = s_3_7;
      m[k] = m_new_1_0;
      m[(k + 1)] = m_new_1_1_1;
      m[(k + 2)] = m_new_1_2;
      m[(k + 3)] = m_new_1_3;
      m[(k + 4)] = m_new_1_4;
      m[(k + 5)] = m_new_1_5;
      m[(k + 6)] = m_new_1_6;
      m[(k + 7)] = m_new_1_7;
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
  float t_23[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    bool t_19 = (m[k] == row_max_1);
    float t_20 = (m[k] - row_max_1);
    float t_21 = (t_19 ? 0.0f : t_20);
    float t_22 = mf_exp(t_21);
    t_23[k] = (s[k] * t_22);
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
    decltype(out_ptr) t_26 = (out_ptr + base);
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int offs_6 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1 = (offs_6 < mf_n_cols);
      __half t_25_0;
      __half t_25_1;
      __half t_25_2;
      __half t_25_3;
      __half t_25_4;
      __half t_25_5;
      __half t_25_6;
      __half t_25_7;
      {
        mf_vec<8, __half> mf_v{{__float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u)), __float2half(__uint_as_float(0xff800000u))}};
        mf_load_masked(mf_v, (t_24 + offs_6), mask_1);
        t_25_0 = mf_v.v[0];
        t_25_1 = mf_v.v[1];
        t_25_2 = mf_v.v[2];
        t_25_3 = mf_v.v[3];
        t_25_4 = mf_v.v[4];
        t_25_5 = mf_v.v[5];
        t_25_6 = mf_v.v[6];
        t_25_7 = mf_v.v[7];
      }
      float x_2_0 = static_cast<float>(t_25_0);
      float x_2_1 = static_cast<float>(t_25_1);
      float x_2_2 = static_cast<float>(t_25_2);
      float x_2_3 = static_cast<float>(t_25_3);
      float x_2_4 = static_cast<float>(t_25_4);
      float x_2_5 = static_cast<float>(t_25_5);
      float x_2_6 = static_cast<float>(t_25_6);
      float x_2_7 = static_cast<float>(t_25_7);
      // 94: tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)
      float t_27_0 = mf_exp2(fmaf(x_2_0, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_1 = mf_exp2(fmaf(x_2_1, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_2 = mf_exp2(fmaf(x_2_2, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_3 = mf_exp2(fmaf(x_2_3, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_4 = mf_exp2(fmaf(x_2_4, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_5 = mf_exp2(fmaf(x_2_5, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_6 = mf_exp2(fmaf(x_2_6, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_7 = mf_exp2(fmaf(x_2_7, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_28_0 = mf_fdiv(t_27_0, row_sum_1);
      float t_28_1 = mf_fdiv(t_27_1, row_sum_1);
      float t_28_2 = mf_fdiv(t_27_2, row_sum_1);
      float t_28_3 = mf_fdiv(t_27_3, row_sum_1);
      float t_28_4 = mf_fdiv(t_27_4, row_sum_1);
      float t_28_5 = mf_fdiv(t_27_5, row_sum_1);
      float t_28_6 = mf_fdiv(t_27_6, row_sum_1);
      float t_28_7 = mf_fdiv(t_27_7, row_sum_1);
      __half t_29_0 = mf_cast<__half>(t_28_0);
      __half t_29_1 = mf_cast<__half>(t_28_1);
      __half t_29_2 = mf_cast<__half>(t_28_2);
      __half t_29_3 = mf_cast<__half>(t_28_3);
      __half t_29_4 = mf_cast<__half>(t_28_4);
      __half t_29_5 = mf_cast<__half>(t_28_5);
      __half t_29_6 = mf_cast<__half>(t_28_6);
      __half t_29_7 = mf_cast<__half>(t_28_7);
      int offs_7 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1_1 = (offs_7 < mf_n_cols);
      if (mask_1_1) {
        *reinterpret_cast<mf_vec<8, __half>*>((t_26 + offs_7)) = mf_vec<8, __half>{{t_29_0, t_29_1, t_29_2, t_29_3, t_29_4, t_29_5, t_29_6, t_29_7}};
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
    float x[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_1 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_1 < mf_n_cols);
      __half t_2_0;
      __half t_2_1;
      __half t_2_2;
      __half t_2_3;
      __half t_2_4;
      __half t_2_5;
      __half t_2_6;
      __half t_2_7;
      if (mask) {
        t_2_0 = (t_1 + offs_1)[0];
        t_2_1 = (t_1 + offs_1)[1];
        t_2_2 = (t_1 + offs_1)[2];
        t_2_3 = (t_1 + offs_1)[3];
        t_2_4 = (t_1 + offs_1)[4];
        t_2_5 = (t_1 + offs_1)[5];
        t_2_6 = (t_1 + offs_1)[6];
        t_2_7 = (t_1 + offs_1)[7];
      } else {
        t_2_0 = __float2half(__uint_as_float(0xff800000u));
        t_2_1 = __float2half(__uint_as_float(0xff800000u));
        t_2_2 = __float2half(__uint_as_float(0xff800000u));
        t_2_3 = __float2half(__uint_as_float(0xff800000u));
        t_2_4 = __float2half(__uint_as_float(0xff800000u));
        t_2_5 = __float2half(__uint_as_float(0xff800000u));
        t_2_6 = __float2half(__uint_as_float(0xff800000u));
        t_2_7 = __float2half(__uint_as_float(0xff800000u));
      }
      x[k] = static_cast<float>(t_2_0);
      x[(k + 1)] = static_cast<float>(t_2_1);
      x[(k + 2)] = static_cast<float>(t_2_2);
      x[(k + 3)] = static_cast<float>(t_2_3);
      x[(k + 4)] = static_cast<float>(t_2_4);
      x[(k + 5)] = static_cast<float>(t_2_5);
      x[(k + 6)] = static_cast<float>(t_2_6);
      x[(k + 7)] = static_cast<float>(t_2_7);
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
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      float t_6_0 = mf_fdiv(e[k], t_5);
      __half t_7_0 = mf_cast<__half>(t_6_0);
      float t_6_1 = mf_fdiv(e[(k + 1)], t_5);
      __half t_7_1 = mf_cast<__half>(t_6_1);
      float t_6_2 = mf_fdiv(e[(k + 2)], t_5);
      __half t_7_2 = mf_cast<__half>(t_6_2);
      float t_6_3 = mf_fdiv(e[(k + 3)], t_5);
      __half t_7_3 = mf_cast<__half>(t_6_3);
      float t_6_4 = mf_fdiv(e[(k + 4)], t_5);
      __half t_7_4 = mf_cast<__half>(t_6_4);
      float t_6_5 = mf_fdiv(e[(k + 5)], t_5);
      __half t_7_5 = mf_cast<__half>(t_6_5);
      float t_6_6 = mf_fdiv(e[(k + 6)], t_5);
      __half t_7_6 = mf_cast<__half>(t_6_6);
      float t_6_7 = mf_fdiv(e[(k + 7)], t_5);
      __half t_7_7 = mf_cast<__half>(t_6_7);
      int offs_2 = ((k * 256) + (int(threadIdx.x) * 8));
      bool mask = (offs_2 < mf_n_cols);
      if (mask) {
        (t_4 + offs_2)[0] = t_7_0;
        (t_4 + offs_2)[1] = t_7_1;
        (t_4 + offs_2)[2] = t_7_2;
        (t_4 + offs_2)[3] = t_7_3;
        (t_4 + offs_2)[4] = t_7_4;
        (t_4 + offs_2)[5] = t_7_5;
        (t_4 + offs_2)[6] = t_7_6;
        (t_4 + offs_2)[7] = t_7_7;
      }
    }
    // 77: return
    return;
  }
  // 80: m = tl.full((BLOCK,), -float("inf"), tl.float32)
  // 81: s = tl.zeros((BLOCK,), dtype=tl.float32)
  // 82: for start in range(0, n_cols, BLOCK):
  float s[16];
  float m[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    float s_1 = 0.0f;
    s[k] = s_1;
    float m_1 = __uint_as_float(0xff800000u);
    m[k] = m_1;
  }
  for (int start = 0; (start < mf_n_cols); start += 4096) {
    // 83: offs = start + tl.arange(0, BLOCK)
    // 84: x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    decltype(x_ptr) t_8 = (x_ptr + base);
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_4 = (start + ((k * 256) + (int(threadIdx.x) * 8)));
      __half t_9_0;
      __half t_9_1;
      __half t_9_2;
      __half t_9_3;
      __half t_9_4;
      __half t_9_5;
      __half t_9_6;
      __half t_9_7;
      if ((offs_4 < mf_n_cols)) {
        t_9_0 = (t_8 + offs_4)[0];
        t_9_1 = (t_8 + offs_4)[1];
        t_9_2 = (t_8 + offs_4)[2];
        t_9_3 = (t_8 + offs_4)[3];
        t_9_4 = (t_8 + offs_4)[4];
        t_9_5 = (t_8 + offs_4)[5];
        t_9_6 = (t_8 + offs_4)[6];
        t_9_7 = (t_8 + offs_4)[7];
      } else {
        t_9_0 = __float2half(__uint_as_float(0xff800000u));
        t_9_1 = __float2half(__uint_as_float(0xff800000u));
        t_9_2 = __float2half(__uint_as_float(0xff800000u));
        t_9_3 = __float2half(__uint_as_float(0xff800000u));
        t_9_4 = __float2half(__uint_as_float(0xff800000u));
        t_9_5 = __float2half(__uint_as_float(0xff800000u));
        t_9_6 = __float2half(__uint_as_float(0xff800000u));
        t_9_7 = __float2half(__uint_as_float(0xff800000u));
      }
      float x_1_0 = static_cast<float>(t_9_0);
      float x_1_1 = static_cast<float>(t_9_1);
      float x_1_2 = static_cast<float>(t_9_2);
      float x_1_3 = static_cast<float>(t_9_3);
      float x_1_4 = static_cast<float>(t_9_4);
      float x_1_5 = static_cast<float>(t_9_5);
      float x_1_6 = static_cast<float>(t_9_6);
      float x_1_7 = static_cast<float>(t_9_7);
      // 85: m_new = tl.maximum(m, x)
      float m_new_0 = fmaxf(m[k], x_1_0);
      float m_new_1_1 = fmaxf(m[(k + 1)], x_1_1);
      float m_new_2 = fmaxf(m[(k + 2)], x_1_2);
      float m_new_3 = fmaxf(m[(k + 3)], x_1_3);
      float m_new_4 = fmaxf(m[(k + 4)], x_1_4);
      float m_new_5 = fmaxf(m[(k + 5)], x_1_5);
      float m_new_6 = fmaxf(m[(k + 6)], x_1_6);
      float m_new_7 = fmaxf(m[(k + 7)], x_1_7);
      // 86: s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
      bool t_10_0 = (m_new_0 == m[k]);
      bool t_10_1 = (m_new_1_1 == m[(k + 1)]);
      bool t_10_2 = (m_new_2 == m[(k + 2)]);
      bool t_10_3 = (m_new_3 == m[(k + 3)]);
      bool t_10_4 = (m_new_4 == m[(k + 4)]);
      bool t_10_5 = (m_new_5 == m[(k + 5)]);
      bool t_10_6 = (m_new_6 == m[(k + 6)]);
      bool t_10_7 = (m_new_7 == m[(k + 7)]);
      float t_11_0 = (m[k] - m_new_0);
      float t_11_1 = (m[(k + 1)] - m_new_1_1);
      float t_11_2 = (m[(k + 2)] - m_new_2);
      float t_11_3 = (m[(k + 3)] - m_new_3);
      float t_11_4 = (m[(k + 4)] - m_new_4);
      float t_11_5 = (m[(k + 5)] - m_new_5);
      float t_11_6 = (m[(k + 6)] - m_new_6);
      float t_11_7 = (m[(k + 7)] - m_new_7);
      float t_12_0 = (t_10_0 ? 0.0f : t_11_0);
      float t_12_1 = (t_10_1 ? 0.0f : t_11_1);
      float t_12_2 = (t_10_2 ? 0.0f : t_11_2);
      float t_12_3 = (t_10_3 ? 0.0f : t_11_3);
      float t_12_4 = (t_10_4 ? 0.0f : t_11_4);
      float t_12_5 = (t_10_5 ? 0.0f : t_11_5);
      float t_12_6 = (t_10_6 ? 0.0f : t_11_6);
      float t_12_7 = (t_10_7 ? 0.0f : t_11_7);
      float t_13_0 = mf_exp(t_12_0);
      float t_13_1 = mf_exp(t_12_1);
      float t_13_2 = mf_exp(t_12_2);
      float t_13_3 = mf_exp(t_12_3);
      float t_13_4 = mf_exp(t_12_4);
      float t_13_5 = mf_exp(t_12_5);
      float t_13_6 = mf_exp(t_12_6);
      float t_13_7 = mf_exp(t_12_7);
      float t_14_0 = (s[k] * t_13_0);
      float t_14_1 = (s[(k + 1)] * t_13_1);
      float t_14_2 = (s[(k + 2)] * t_13_2);
      float t_14_3 = (s[(k + 3)] * t_13_3);
      float t_14_4 = (s[(k + 4)] * t_13_4);
      float t_14_5 = (s[(k + 5)] * t_13_5);
      float t_14_6 = (s[(k + 6)] * t_13_6);
      float t_14_7 = (s[(k + 7)] * t_13_7);
      bool t_15_0 = (x_1_0 == m_new_0);
      bool t_15_1 = (x_1_1 == m_new_1_1);
      bool t_15_2 = (x_1_2 == m_new_2);
      bool t_15_3 = (x_1_3 == m_new_3);
      bool t_15_4 = (x_1_4 == m_new_4);
      bool t_15_5 = (x_1_5 == m_new_5);
      bool t_15_6 = (x_1_6 == m_new_6);
      bool t_15_7 = (x_1_7 == m_new_7);
      float t_16_0 = (x_1_0 - m_new_0);
      float t_16_1 = (x_1_1 - m_new_1_1);
      float t_16_2 = (x_1_2 - m_new_2);
      float t_16_3 = (x_1_3 - m_new_3);
      float t_16_4 = (x_1_4 - m_new_4);
      float t_16_5 = (x_1_5 - m_new_5);
      float t_16_6 = (x_1_6 - m_new_6);
      float t_16_7 = (x_1_7 - m_new_7);
      float t_17_0 = (t_15_0 ? 0.0f : t_16_0);
      float t_17_1 = (t_15_1 ? 0.0f : t_16_1);
      float t_17_2 = (t_15_2 ? 0.0f : t_16_2);
      float t_17_3 = (t_15_3 ? 0.0f : t_16_3);
      float t_17_4 = (t_15_4 ? 0.0f : t_16_4);
      float t_17_5 = (t_15_5 ? 0.0f : t_16_5);
      float t_17_6 = (t_15_6 ? 0.0f : t_16_6);
      float t_17_7 = (t_15_7 ? 0.0f : t_16_7);
      float t_18_0 = mf_exp(t_17_0);
      float t_18_1 = mf_exp(t_17_1);
      float t_18_2 = mf_exp(t_17_2);
      float t_18_3 = mf_exp(t_17_3);
      float t_18_4 = mf_exp(t_17_4);
      float t_18_5 = mf_exp(t_17_5);
      float t_18_6 = mf_exp(t_17_6);
      float t_18_7 = mf_exp(t_17_7);
      float s_2_0 = (t_14_0 + t_18_0);
      float s_2_1 = (t_14_1 + t_18_1);
      float s_2_2 = (t_14_2 + t_18_2);
      float s_2_3 = (t_14_3 + t_18_3);
      float s_2_4 = (t_14_4 + t_18_4);
      float s_2_5 = (t_14_5 + t_18_5);
      float s_2_6 = (t_14_6 + t_18_6);
      float s_2_7 = (t_14_7 + t_18_7);
      float s_3_0 = s_2_0;
      float s_3_1 = s_2_1;
      float s_3_2 = s_2_2;
      float s_3_3 = s_2_3;
      float s_3_4 = s_2_4;
      float s_3_5 = s_2_5;
      float s_3_6 = s_2_6;
      float s_3_7 = s_2_7;
      float m_new_1_0 = m_new_0;
      float m_new_1_1_1 = m_new_1_1;
      float m_new_1_2 = m_new_2;
      float m_new_1_3 = m_new_3;
      float m_new_1_4 = m_new_4;
      float m_new_1_5 = m_new_5;
      float m_new_1_6 = m_new_6;
      float m_new_1_7 = m_new_7;
      s[k] = s_3_0;
      s[(k + 1)] = s_3_1;
      s[(k + 2)] = s_3_2;
      s[(k + 3)] = s_3_3;
      s[(k + 4)] = s_3_4;
      s[(k + 5)] = s_3_5;
      s[(k + 6)] = s_3_6;
      s[(k + 7)] = s_3_7;
      m[k] = m_new_1_0;
      m[(k + 1)] = m_new_1_1_1;
      m[(k + 2)] = m_new_1_2;
      m[(k + 3)] = m_new_1_3;
      m[(k + 4)] = m_new_1_4;
      m[(k + 5)] = m_new_1_5;
      m[(k + 6)] = m_new_1_6;
      m[(k + 7)] = m_new_1_7;
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
  float t_23[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    bool t_19 = (m[k] == row_max_1);
    float t_20 = (m[k] - row_max_1);
    float t_21 = (t_19 ? 0.0f : t_20);
    float t_22 = mf_exp(t_21);
    t_23[k] = (s[k] * t_22);
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
    decltype(out_ptr) t_26 = (out_ptr + base);
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int offs_6 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1 = (offs_6 < mf_n_cols);
      __half t_25_0;
      __half t_25_1;
      __half t_25_2;
      __half t_25_3;
      __half t_25_4;
      __half t_25_5;
      __half t_25_6;
      __half t_25_7;
      if (mask_1) {
        t_25_0 = (t_24 + offs_6)[0];
        t_25_1 = (t_24 + offs_6)[1];
        t_25_2 = (t_24 + offs_6)[2];
        t_25_3 = (t_24 + offs_6)[3];
        t_25_4 = (t_24 + offs_6)[4];
        t_25_5 = (t_24 + offs_6)[5];
        t_25_6 = (t_24 + offs_6)[6];
        t_25_7 = (t_24 + offs_6)[7];
      } else {
        t_25_0 = __float2half(__uint_as_float(0xff800000u));
        t_25_1 = __float2half(__uint_as_float(0xff800000u));
        t_25_2 = __float2half(__uint_as_float(0xff800000u));
        t_25_3 = __float2half(__uint_as_float(0xff800000u));
        t_25_4 = __float2half(__uint_as_float(0xff800000u));
        t_25_5 = __float2half(__uint_as_float(0xff800000u));
        t_25_6 = __float2half(__uint_as_float(0xff800000u));
        t_25_7 = __float2half(__uint_as_float(0xff800000u));
      }
      float x_2_0 = static_cast<float>(t_25_0);
      float x_2_1 = static_cast<float>(t_25_1);
      float x_2_2 = static_cast<float>(t_25_2);
      float x_2_3 = static_cast<float>(t_25_3);
      float x_2_4 = static_cast<float>(t_25_4);
      float x_2_5 = static_cast<float>(t_25_5);
      float x_2_6 = static_cast<float>(t_25_6);
      float x_2_7 = static_cast<float>(t_25_7);
      // 94: tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)
      float t_27_0 = mf_exp2(fmaf(x_2_0, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_1 = mf_exp2(fmaf(x_2_1, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_2 = mf_exp2(fmaf(x_2_2, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_3 = mf_exp2(fmaf(x_2_3, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_4 = mf_exp2(fmaf(x_2_4, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_5 = mf_exp2(fmaf(x_2_5, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_6 = mf_exp2(fmaf(x_2_6, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_27_7 = mf_exp2(fmaf(x_2_7, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
      float t_28_0 = mf_fdiv(t_27_0, row_sum_1);
      float t_28_1 = mf_fdiv(t_27_1, row_sum_1);
      float t_28_2 = mf_fdiv(t_27_2, row_sum_1);
      float t_28_3 = mf_fdiv(t_27_3, row_sum_1);
      float t_28_4 = mf_fdiv(t_27_4, row_sum_1);
      float t_28_5 = mf_fdiv(t_27_5, row_sum_1);
      float t_28_6 = mf_fdiv(t_27_6, row_sum_1);
      float t_28_7 = mf_fdiv(t_27_7, row_sum_1);
      __half t_29_0 = mf_cast<__half>(t_28_0);
      __half t_29_1 = mf_cast<__half>(t_28_1);
      __half t_29_2 = mf_cast<__half>(t_28_2);
      __half t_29_3 = mf_cast<__half>(t_28_3);
      __half t_29_4 = mf_cast<__half>(t_28_4);
      __half t_29_5 = mf_cast<__half>(t_28_5);
      __half t_29_6 = mf_cast<__half>(t_28_6);
      __half t_29_7 = mf_cast<__half>(t_28_7);
      int offs_7 = (start_1 + ((k * 256) + (int(threadIdx.x) * 8)));
      bool mask_1_1 = (offs_7 < mf_n_cols);
      if (mask_1_1) {
        (t_26 + offs_7)[0] = t_29_0;
        (t_26 + offs_7)[1] = t_29_1;
        (t_26 + offs_7)[2] = t_29_2;
        (t_26 + offs_7)[3] = t_29_3;
        (t_26 + offs_7)[4] = t_29_4;
        (t_26 + offs_7)[5] = t_29_5;
        (t_26 + offs_7)[6] = t_29_6;
        (t_26 + offs_7)[7] = t_29_7;
      }
    }
  }
}
