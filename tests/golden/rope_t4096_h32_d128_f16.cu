
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

const auto mf_n_heads = n_heads[0];
const auto mf_T = T[0];
const auto mf_log_base = log_base[0];
const auto mf_offset = offset[0];
const auto mf_pos_scale = pos_scale[0];
if ((mf_is_aligned(out_ptr, 16) && mf_is_aligned(x_ptr, 16))) {
  // 67: t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
  int t = (int(blockIdx.x) * 16);
  // 68: i = tl.arange(0, HALF)
  // 69: inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
  float t_1 = (-mf_log_base);
  float t_2 = mf_fdiv(t_1, 64.0f);
  // 70: theta = ((t + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
  float c[8];
  float s[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    int t_3 = (t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int i = (((int(threadIdx.x % 32u) % 8) * 8) + k);
    float inv_freq = mf_exp((static_cast<float>(i) * t_2));
    float theta = ((static_cast<float>((t_3 + mf_offset)) * mf_pos_scale) * inv_freq);
    // 71: c = tl.cos(theta)
    // 72: s = tl.sin(theta)
    sincosf(theta, &s[k], &c[k]);
  }
  // 73: first = t[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
  // 78: for j in range(HEADS):  # the heads of this program: the same angles
  for (int j = 0; (j < 8); j += 1) {
    // 79: head = tl.program_id(1) * HEADS + j
    int t_4 = (int(blockIdx.y) * 8);
    int head = (t_4 + j);
    // 80: ok = (t < T)[:, None] & (head < n_heads)
    bool t_5 = (head < mf_n_heads);
    // 81: x_head = x_ptr + head * T * (2 * HALF)
    int t_6 = (head * mf_T);
    int t_7 = (t_6 * 128);
    decltype(x_ptr) x_head = (x_ptr + t_7);
    // 82: out_head = out_ptr + head * T * (2 * HALF)
    int t_8 = (head * mf_T);
    int t_9 = (t_8 * 128);
    decltype(out_ptr) out_head = (out_ptr + t_9);
    // 83: x1 = tl.load(x_head + first, mask=ok, other=0.0).to(tl.float32)
    int t_3 = t;
    int i = 0;
    __half t_10[8];
    int t_11 = (t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int i_1 = ((int(threadIdx.x % 32u) % 8) * 8);
    int first_1 = ((t_11 * 128) + i_1);
    bool ok_1 = ((t_11 < mf_T) & t_5);
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, (x_head + first_1), ok_1);
      t_10[0] = mf_v.v[0];
      t_10[1] = mf_v.v[1];
      t_10[2] = mf_v.v[2];
      t_10[3] = mf_v.v[3];
      t_10[4] = mf_v.v[4];
      t_10[5] = mf_v.v[5];
      t_10[6] = mf_v.v[6];
      t_10[7] = mf_v.v[7];
    }
    float x1[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      x1[k] = static_cast<float>(t_10[k]);
    }
    // 84: x2 = tl.load(x_head + first + partner, mask=ok, other=0.0).to(tl.float32)
    __half t_12[8];
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, ((x_head + first_1) + 64), ok_1);
      t_12[0] = mf_v.v[0];
      t_12[1] = mf_v.v[1];
      t_12[2] = mf_v.v[2];
      t_12[3] = mf_v.v[3];
      t_12[4] = mf_v.v[4];
      t_12[5] = mf_v.v[5];
      t_12[6] = mf_v.v[6];
      t_12[7] = mf_v.v[7];
    }
    float x2[8];
    __half t_16[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      x2[k] = static_cast<float>(t_12[k]);
      // 85: tl.store(out_head + first, x1 * c - x2 * s, mask=ok)
      float t_13 = (x1[k] * c[k]);
      float t_14 = (x2[k] * s[k]);
      float t_15 = (t_13 - t_14);
      t_16[k] = mf_cast<__half>(t_15);
    }
    if (ok_1) {
      *reinterpret_cast<mf_vec<8, __half>*>((out_head + first_1)) = mf_vec<8, __half>{{t_16[0], t_16[1], t_16[2], t_16[3], t_16[4], t_16[5], t_16[6], t_16[7]}};
    }
    // 86: tl.store(out_head + first + partner, x1 * s + x2 * c, mask=ok)
    __half t_20[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float t_17 = (x1[k] * s[k]);
      float t_18 = (x2[k] * c[k]);
      float t_19 = (t_17 + t_18);
      t_20[k] = mf_cast<__half>(t_19);
    }
    if (ok_1) {
      *reinterpret_cast<mf_vec<8, __half>*>(((out_head + first_1) + 64)) = mf_vec<8, __half>{{t_20[0], t_20[1], t_20[2], t_20[3], t_20[4], t_20[5], t_20[6], t_20[7]}};
    }
  }
} else {
  // 67: t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
  int t = (int(blockIdx.x) * 16);
  // 68: i = tl.arange(0, HALF)
  // 69: inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
  float t_1 = (-mf_log_base);
  float t_2 = mf_fdiv(t_1, 64.0f);
  // 70: theta = ((t + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
  float c[8];
  float s[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    int t_3 = (t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int i = (((int(threadIdx.x % 32u) % 8) * 8) + k);
    float inv_freq = mf_exp((static_cast<float>(i) * t_2));
    float theta = ((static_cast<float>((t_3 + mf_offset)) * mf_pos_scale) * inv_freq);
    // 71: c = tl.cos(theta)
    // 72: s = tl.sin(theta)
    sincosf(theta, &s[k], &c[k]);
  }
  // 73: first = t[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
  // 78: for j in range(HEADS):  # the heads of this program: the same angles
  for (int j = 0; (j < 8); j += 1) {
    // 79: head = tl.program_id(1) * HEADS + j
    int t_4 = (int(blockIdx.y) * 8);
    int head = (t_4 + j);
    // 80: ok = (t < T)[:, None] & (head < n_heads)
    bool t_5 = (head < mf_n_heads);
    // 81: x_head = x_ptr + head * T * (2 * HALF)
    int t_6 = (head * mf_T);
    int t_7 = (t_6 * 128);
    decltype(x_ptr) x_head = (x_ptr + t_7);
    // 82: out_head = out_ptr + head * T * (2 * HALF)
    int t_8 = (head * mf_T);
    int t_9 = (t_8 * 128);
    decltype(out_ptr) out_head = (out_ptr + t_9);
    // 83: x1 = tl.load(x_head + first, mask=ok, other=0.0).to(tl.float32)
    int t_3 = t;
    int i = 0;
    __half t_10[8];
    int t_11 = (t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int i_1 = ((int(threadIdx.x % 32u) % 8) * 8);
    int first_1 = ((t_11 * 128) + i_1);
    bool ok_1 = ((t_11 < mf_T) & t_5);
    if (ok_1) {
      t_10[0] = (x_head + first_1)[0];
      t_10[1] = (x_head + first_1)[1];
      t_10[2] = (x_head + first_1)[2];
      t_10[3] = (x_head + first_1)[3];
      t_10[4] = (x_head + first_1)[4];
      t_10[5] = (x_head + first_1)[5];
      t_10[6] = (x_head + first_1)[6];
      t_10[7] = (x_head + first_1)[7];
    } else {
      t_10[0] = __float2half(0.0f);
      t_10[1] = __float2half(0.0f);
      t_10[2] = __float2half(0.0f);
      t_10[3] = __float2half(0.0f);
      t_10[4] = __float2half(0.0f);
      t_10[5] = __float2half(0.0f);
      t_10[6] = __float2half(0.0f);
      t_10[7] = __float2half(0.0f);
    }
    float x1[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      x1[k] = static_cast<float>(t_10[k]);
    }
    // 84: x2 = tl.load(x_head + first + partner, mask=ok, other=0.0).to(tl.float32)
    __half t_12[8];
    if (ok_1) {
      t_12[0] = ((x_head + first_1) + 64)[0];
      t_12[1] = ((x_head + first_1) + 64)[1];
      t_12[2] = ((x_head + first_1) + 64)[2];
      t_12[3] = ((x_head + first_1) + 64)[3];
      t_12[4] = ((x_head + first_1) + 64)[4];
      t_12[5] = ((x_head + first_1) + 64)[5];
      t_12[6] = ((x_head + first_1) + 64)[6];
      t_12[7] = ((x_head + first_1) + 64)[7];
    } else {
      t_12[0] = __float2half(0.0f);
      t_12[1] = __float2half(0.0f);
      t_12[2] = __float2half(0.0f);
      t_12[3] = __float2half(0.0f);
      t_12[4] = __float2half(0.0f);
      t_12[5] = __float2half(0.0f);
      t_12[6] = __float2half(0.0f);
      t_12[7] = __float2half(0.0f);
    }
    float x2[8];
    __half t_16[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      x2[k] = static_cast<float>(t_12[k]);
      // 85: tl.store(out_head + first, x1 * c - x2 * s, mask=ok)
      float t_13 = (x1[k] * c[k]);
      float t_14 = (x2[k] * s[k]);
      float t_15 = (t_13 - t_14);
      t_16[k] = mf_cast<__half>(t_15);
    }
    if (ok_1) {
      (out_head + first_1)[0] = t_16[0];
      (out_head + first_1)[1] = t_16[1];
      (out_head + first_1)[2] = t_16[2];
      (out_head + first_1)[3] = t_16[3];
      (out_head + first_1)[4] = t_16[4];
      (out_head + first_1)[5] = t_16[5];
      (out_head + first_1)[6] = t_16[6];
      (out_head + first_1)[7] = t_16[7];
    }
    // 86: tl.store(out_head + first + partner, x1 * s + x2 * c, mask=ok)
    __half t_20[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float t_17 = (x1[k] * s[k]);
      float t_18 = (x2[k] * c[k]);
      float t_19 = (t_17 + t_18);
      t_20[k] = mf_cast<__half>(t_19);
    }
    if (ok_1) {
      ((out_head + first_1) + 64)[0] = t_20[0];
      ((out_head + first_1) + 64)[1] = t_20[1];
      ((out_head + first_1) + 64)[2] = t_20[2];
      ((out_head + first_1) + 64)[3] = t_20[3];
      ((out_head + first_1) + 64)[4] = t_20[4];
      ((out_head + first_1) + 64)[5] = t_20[5];
      ((out_head + first_1) + 64)[6] = t_20[6];
      ((out_head + first_1) + 64)[7] = t_20[7];
    }
  }
}
