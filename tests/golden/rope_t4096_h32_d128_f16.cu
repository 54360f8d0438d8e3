
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
// Triton's fp32 math: the hardware approximations its PTX uses (ex2.approx, sqrt.approx, div.full).
__device__ __forceinline__ float mf_exp2(float x) { float y; asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mf_exp(float x) { return mf_exp2(x * 1.4426950408889634f); }
__device__ __forceinline__ float mf_fdiv(float a, float b) {
  float y;
  asm("div.full.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}

const auto mf_n_rows = n_rows[0];
const auto mf_T = T[0];
const auto mf_log_base = log_base[0];
const auto mf_offset = offset[0];
const auto mf_pos_scale = pos_scale[0];
if ((mf_is_aligned(out_ptr, 16) && mf_is_aligned(x_ptr, 16))) {
  // 51: rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
  int t = (int(blockIdx.x) * 16);
  // 52: ok = rows < n_rows
  // 53: i = tl.arange(0, HALF)
  // 54: inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
  float t_1 = (-mf_log_base);
  float t_2 = mf_fdiv(t_1, 64.0f);
  // 55: theta = ((rows % T + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
  float theta[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    int rows = (t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int i = (((int(threadIdx.x % 32u) % 8) * 8) + k);
    float inv_freq = mf_exp((static_cast<float>(i) * t_2));
    theta[k] = ((static_cast<float>(((rows % mf_T) + mf_offset)) * mf_pos_scale) * inv_freq);
  }
  // 56: c = tl.cos(theta)
  float c[8];
  // 57: s = tl.sin(theta)
  float s[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    sincosf(theta[k], &s[k], &c[k]);
  }
  // 58: first = rows[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
  // 63: x1 = tl.load(x_ptr + first, mask=ok[:, None], other=0.0).to(tl.float32)
  __half t_3[8];
  {
    mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
    mf_load_masked(mf_v, (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))), ((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows));
    t_3[0] = mf_v.v[0];
    t_3[1] = mf_v.v[1];
    t_3[2] = mf_v.v[2];
    t_3[3] = mf_v.v[3];
    t_3[4] = mf_v.v[4];
    t_3[5] = mf_v.v[5];
    t_3[6] = mf_v.v[6];
    t_3[7] = mf_v.v[7];
  }
  float x1[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    x1[k] = static_cast<float>(t_3[k]);
  }
  // 64: x2 = tl.load(x_ptr + first + partner, mask=ok[:, None], other=0.0).to(tl.float32)
  __half t_4[8];
  {
    mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
    mf_load_masked(mf_v, ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64), ((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows));
    t_4[0] = mf_v.v[0];
    t_4[1] = mf_v.v[1];
    t_4[2] = mf_v.v[2];
    t_4[3] = mf_v.v[3];
    t_4[4] = mf_v.v[4];
    t_4[5] = mf_v.v[5];
    t_4[6] = mf_v.v[6];
    t_4[7] = mf_v.v[7];
  }
  float x2[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    x2[k] = static_cast<float>(t_4[k]);
  }
  // 65: tl.store(out_ptr + first, x1 * c - x2 * s, mask=ok[:, None])
  float t_5[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_5[k] = (x1[k] * c[k]);
  }
  float t_6[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_6[k] = (x2[k] * s[k]);
  }
  float t_7[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_7[k] = (t_5[k] - t_6[k]);
  }
  __half t_8[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_8[k] = mf_cast<__half>(t_7[k]);
  }
  if (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows)) {
    *reinterpret_cast<mf_vec<8, __half>*>((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))) = mf_vec<8, __half>{{t_8[0], t_8[1], t_8[2], t_8[3], t_8[4], t_8[5], t_8[6], t_8[7]}};
  }
  // 66: tl.store(out_ptr + first + partner, x1 * s + x2 * c, mask=ok[:, None])
  float t_9[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_9[k] = (x1[k] * s[k]);
  }
  float t_10[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_10[k] = (x2[k] * c[k]);
  }
  float t_11[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_11[k] = (t_9[k] + t_10[k]);
  }
  __half t_12[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_12[k] = mf_cast<__half>(t_11[k]);
  }
  if (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows)) {
    *reinterpret_cast<mf_vec<8, __half>*>(((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)) = mf_vec<8, __half>{{t_12[0], t_12[1], t_12[2], t_12[3], t_12[4], t_12[5], t_12[6], t_12[7]}};
  }
} else {
  // 51: rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
  int t = (int(blockIdx.x) * 16);
  // 52: ok = rows < n_rows
  // 53: i = tl.arange(0, HALF)
  // 54: inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
  float t_1 = (-mf_log_base);
  float t_2 = mf_fdiv(t_1, 64.0f);
  // 55: theta = ((rows % T + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
  float theta[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    int rows = (t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int i = (((int(threadIdx.x % 32u) % 8) * 8) + k);
    float inv_freq = mf_exp((static_cast<float>(i) * t_2));
    theta[k] = ((static_cast<float>(((rows % mf_T) + mf_offset)) * mf_pos_scale) * inv_freq);
  }
  // 56: c = tl.cos(theta)
  float c[8];
  // 57: s = tl.sin(theta)
  float s[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    sincosf(theta[k], &s[k], &c[k]);
  }
  // 58: first = rows[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
  // 63: x1 = tl.load(x_ptr + first, mask=ok[:, None], other=0.0).to(tl.float32)
  __half t_3[8];
  if (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows)) {
    t_3[0] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[0];
    t_3[1] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[1];
    t_3[2] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[2];
    t_3[3] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[3];
    t_3[4] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[4];
    t_3[5] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[5];
    t_3[6] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[6];
    t_3[7] = (x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[7];
  } else {
    t_3[0] = __float2half(0.0f);
    t_3[1] = __float2half(0.0f);
    t_3[2] = __float2half(0.0f);
    t_3[3] = __float2half(0.0f);
    t_3[4] = __float2half(0.0f);
    t_3[5] = __float2half(0.0f);
    t_3[6] = __float2half(0.0f);
    t_3[7] = __float2half(0.0f);
  }
  float x1[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    x1[k] = static_cast<float>(t_3[k]);
  }
  // 64: x2 = tl.load(x_ptr + first + partner, mask=ok[:, None], other=0.0).to(tl.float32)
  __half t_4[8];
  if (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows)) {
    t_4[0] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[0];
    t_4[1] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[1];
    t_4[2] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[2];
    t_4[3] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[3];
    t_4[4] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[4];
    t_4[5] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[5];
    t_4[6] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[6];
    t_4[7] = ((x_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[7];
  } else {
    t_4[0] = __float2half(0.0f);
    t_4[1] = __float2half(0.0f);
    t_4[2] = __float2half(0.0f);
    t_4[3] = __float2half(0.0f);
    t_4[4] = __float2half(0.0f);
    t_4[5] = __float2half(0.0f);
    t_4[6] = __float2half(0.0f);
    t_4[7] = __float2half(0.0f);
  }
  float x2[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    x2[k] = static_cast<float>(t_4[k]);
  }
  // 65: tl.store(out_ptr + first, x1 * c - x2 * s, mask=ok[:, None])
  float t_5[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_5[k] = (x1[k] * c[k]);
  }
  float t_6[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_6[k] = (x2[k] * s[k]);
  }
  float t_7[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_7[k] = (t_5[k] - t_6[k]);
  }
  __half t_8[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_8[k] = mf_cast<__half>(t_7[k]);
  }
  if (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows)) {
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[0] = t_8[0];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[1] = t_8[1];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[2] = t_8[2];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[3] = t_8[3];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[4] = t_8[4];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[5] = t_8[5];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[6] = t_8[6];
    (out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8)))[7] = t_8[7];
  }
  // 66: tl.store(out_ptr + first + partner, x1 * s + x2 * c, mask=ok[:, None])
  float t_9[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_9[k] = (x1[k] * s[k]);
  }
  float t_10[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_10[k] = (x2[k] * c[k]);
  }
  float t_11[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_11[k] = (t_9[k] + t_10[k]);
  }
  __half t_12[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_12[k] = mf_cast<__half>(t_11[k]);
  }
  if (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) < mf_n_rows)) {
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[0] = t_12[0];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[1] = t_12[1];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[2] = t_12[2];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[3] = t_12[3];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[4] = t_12[4];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[5] = t_12[5];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[6] = t_12[6];
    ((out_ptr + (((t + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 128) + ((int(threadIdx.x % 32u) % 8) * 8))) + 64)[7] = t_12[7];
  }
}
