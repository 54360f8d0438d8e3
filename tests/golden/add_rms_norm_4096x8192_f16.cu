
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
__device__ __forceinline__ float mf_sqrt(float x) { float y; asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float mf_fdiv(float a, float b) {
  float y;
  asm("div.full.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_n_cols = n_cols[0];
const auto mf_eps = eps[0];
float* acc_smem = reinterpret_cast<float*>(mf_shared + 0);
if (((((mf_is_aligned(out_ptr, 16) && mf_is_aligned(res_ptr, 16)) && mf_is_aligned(sum_ptr, 16)) && mf_is_aligned(w_ptr, 16)) && mf_is_aligned(x_ptr, 16))) {
  // 90: row = tl.program_id(0)
  // 91: offs = tl.arange(0, BLOCK)
  // 92: mask = offs < n_cols
  // 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
  int t = (int(blockIdx.x) * mf_n_cols);
  decltype(x_ptr) t_1 = (x_ptr + t);
  int t_4 = (int(blockIdx.x) * mf_n_cols);
  decltype(res_ptr) t_5 = (res_ptr + t_4);
  float h[32];
  int t_8 = (int(blockIdx.x) * mf_n_cols);
  decltype(sum_ptr) t_9 = (sum_ptr + t_8);
  float t_11[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 8) {
    int offs = ((k * 256) + (int(threadIdx.x) * 8));
    bool mask = (offs < mf_n_cols);
    __half t_2_0;
    __half t_2_1;
    __half t_2_2;
    __half t_2_3;
    __half t_2_4;
    __half t_2_5;
    __half t_2_6;
    __half t_2_7;
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, (t_1 + offs), mask);
      t_2_0 = mf_v.v[0];
      t_2_1 = mf_v.v[1];
      t_2_2 = mf_v.v[2];
      t_2_3 = mf_v.v[3];
      t_2_4 = mf_v.v[4];
      t_2_5 = mf_v.v[5];
      t_2_6 = mf_v.v[6];
      t_2_7 = mf_v.v[7];
    }
    float t_3_0 = static_cast<float>(t_2_0);
    float t_3_1 = static_cast<float>(t_2_1);
    float t_3_2 = static_cast<float>(t_2_2);
    float t_3_3 = static_cast<float>(t_2_3);
    float t_3_4 = static_cast<float>(t_2_4);
    float t_3_5 = static_cast<float>(t_2_5);
    float t_3_6 = static_cast<float>(t_2_6);
    float t_3_7 = static_cast<float>(t_2_7);
    // 94: + tl.load(res_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    __half t_6_0;
    __half t_6_1;
    __half t_6_2;
    __half t_6_3;
    __half t_6_4;
    __half t_6_5;
    __half t_6_6;
    __half t_6_7;
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, (t_5 + offs), mask);
      t_6_0 = mf_v.v[0];
      t_6_1 = mf_v.v[1];
      t_6_2 = mf_v.v[2];
      t_6_3 = mf_v.v[3];
      t_6_4 = mf_v.v[4];
      t_6_5 = mf_v.v[5];
      t_6_6 = mf_v.v[6];
      t_6_7 = mf_v.v[7];
    }
    float t_7_0 = static_cast<float>(t_6_0);
    float t_7_1 = static_cast<float>(t_6_1);
    float t_7_2 = static_cast<float>(t_6_2);
    float t_7_3 = static_cast<float>(t_6_3);
    float t_7_4 = static_cast<float>(t_6_4);
    float t_7_5 = static_cast<float>(t_6_5);
    float t_7_6 = static_cast<float>(t_6_6);
    float t_7_7 = static_cast<float>(t_6_7);
    // 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    h[k] = (t_3_0 + t_7_0);
    h[(k + 1)] = (t_3_1 + t_7_1);
    h[(k + 2)] = (t_3_2 + t_7_2);
    h[(k + 3)] = (t_3_3 + t_7_3);
    h[(k + 4)] = (t_3_4 + t_7_4);
    h[(k + 5)] = (t_3_5 + t_7_5);
    h[(k + 6)] = (t_3_6 + t_7_6);
    h[(k + 7)] = (t_3_7 + t_7_7);
    // 95: tl.store(sum_ptr + row * n_cols + offs, h, mask=mask)
    __half t_10_0 = mf_cast<__half>(h[k]);
    __half t_10_1 = mf_cast<__half>(h[(k + 1)]);
    __half t_10_2 = mf_cast<__half>(h[(k + 2)]);
    __half t_10_3 = mf_cast<__half>(h[(k + 3)]);
    __half t_10_4 = mf_cast<__half>(h[(k + 4)]);
    __half t_10_5 = mf_cast<__half>(h[(k + 5)]);
    __half t_10_6 = mf_cast<__half>(h[(k + 6)]);
    __half t_10_7 = mf_cast<__half>(h[(k + 7)]);
    if (mask) {
      *reinterpret_cast<mf_vec<8, __half>*>((t_9 + offs)) = mf_vec<8, __half>{{t_10_0, t_10_1, t_10_2, t_10_3, t_10_4, t_10_5, t_10_6, t_10_7}};
    }
    // 68: rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / n_cols + eps)
    t_11[k] = (h[k] * h[k]);
    t_11[(k + 1)] = (h[(k + 1)] * h[(k + 1)]);
    t_11[(k + 2)] = (h[(k + 2)] * h[(k + 2)]);
    t_11[(k + 3)] = (h[(k + 3)] * h[(k + 3)]);
    t_11[(k + 4)] = (h[(k + 4)] * h[(k + 4)]);
    t_11[(k + 5)] = (h[(k + 5)] * h[(k + 5)]);
    t_11[(k + 6)] = (h[(k + 6)] * h[(k + 6)]);
    t_11[(k + 7)] = (h[(k + 7)] * h[(k + 7)]);
  }
  float acc[1];
  acc[0] = t_11[0];
  acc[0] = (acc[0] + t_11[1]);
  acc[0] = (acc[0] + t_11[2]);
  acc[0] = (acc[0] + t_11[3]);
  acc[0] = (acc[0] + t_11[4]);
  acc[0] = (acc[0] + t_11[5]);
  acc[0] = (acc[0] + t_11[6]);
  acc[0] = (acc[0] + t_11[7]);
  acc[0] = (acc[0] + t_11[8]);
  acc[0] = (acc[0] + t_11[9]);
  acc[0] = (acc[0] + t_11[10]);
  acc[0] = (acc[0] + t_11[11]);
  acc[0] = (acc[0] + t_11[12]);
  acc[0] = (acc[0] + t_11[13]);
  acc[0] = (acc[0] + t_11[14]);
  acc[0] = (acc[0] + t_11[15]);
  acc[0] = (acc[0] + t_11[16]);
  acc[0] = (acc[0] + t_11[17]);
  acc[0] = (acc[0] + t_11[18]);
  acc[0] = (acc[0] + t_11[19]);
  acc[0] = (acc[0] + t_11[20]);
  acc[0] = (acc[0] + t_11[21]);
  acc[0] = (acc[0] + t_11[22]);
  acc[0] = (acc[0] + t_11[23]);
  acc[0] = (acc[0] + t_11[24]);
  acc[0] = (acc[0] + t_11[25]);
  acc[0] = (acc[0] + t_11[26]);
  acc[0] = (acc[0] + t_11[27]);
  acc[0] = (acc[0] + t_11[28]);
  acc[0] = (acc[0] + t_11[29]);
  acc[0] = (acc[0] + t_11[30]);
  acc[0] = (acc[0] + t_11[31]);
  float partner = __shfl_xor_sync(0xffffffffu, acc[0], 1);
  acc[0] = (acc[0] + partner);
  float partner_1 = __shfl_xor_sync(0xffffffffu, acc[0], 2);
  acc[0] = (acc[0] + partner_1);
  float partner_2 = __shfl_xor_sync(0xffffffffu, acc[0], 4);
  acc[0] = (acc[0] + partner_2);
  float partner_3 = __shfl_xor_sync(0xffffffffu, acc[0], 8);
  acc[0] = (acc[0] + partner_3);
  float partner_4 = __shfl_xor_sync(0xffffffffu, acc[0], 16);
  acc[0] = (acc[0] + partner_4);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    acc_smem[int(threadIdx.x / 32u)] = acc[0];
  }
  __syncthreads();
  acc[0] = acc_smem[0];
  acc[0] = (acc[0] + acc_smem[1]);
  acc[0] = (acc[0] + acc_smem[2]);
  acc[0] = (acc[0] + acc_smem[3]);
  acc[0] = (acc[0] + acc_smem[4]);
  acc[0] = (acc[0] + acc_smem[5]);
  acc[0] = (acc[0] + acc_smem[6]);
  acc[0] = (acc[0] + acc_smem[7]);
  float t_12 = acc[0];
  float t_13 = static_cast<float>(mf_n_cols);
  float t_14 = mf_fdiv(t_12, t_13);
  float t_15 = (t_14 + mf_eps);
  float t_16 = mf_sqrt(t_15);
  float rstd = mf_fdiv(1.0f, t_16);
  // 69: return h * rstd * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
  int t_20 = (int(blockIdx.x) * mf_n_cols);
  decltype(out_ptr) t_21 = (out_ptr + t_20);
  #pragma unroll
  for (int k = 0; (k < 32); k += 8) {
    float t_17_0 = (h[k] * rstd);
    float t_17_1 = (h[(k + 1)] * rstd);
    float t_17_2 = (h[(k + 2)] * rstd);
    float t_17_3 = (h[(k + 3)] * rstd);
    float t_17_4 = (h[(k + 4)] * rstd);
    float t_17_5 = (h[(k + 5)] * rstd);
    float t_17_6 = (h[(k + 6)] * rstd);
    float t_17_7 = (h[(k + 7)] * rstd);
    int offs = ((k * 256) + (int(threadIdx.x) * 8));
    bool mask = (offs < mf_n_cols);
    __half t_18_0;
    __half t_18_1;
    __half t_18_2;
    __half t_18_3;
    __half t_18_4;
    __half t_18_5;
    __half t_18_6;
    __half t_18_7;
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, (w_ptr + offs), mask);
      t_18_0 = mf_v.v[0];
      t_18_1 = mf_v.v[1];
      t_18_2 = mf_v.v[2];
      t_18_3 = mf_v.v[3];
      t_18_4 = mf_v.v[4];
      t_18_5 = mf_v.v[5];
      t_18_6 = mf_v.v[6];
      t_18_7 = mf_v.v[7];
    }
    float t_19_0 = static_cast<float>(t_18_0);
    float t_19_1 = static_cast<float>(t_18_1);
    float t_19_2 = static_cast<float>(t_18_2);
    float t_19_3 = static_cast<float>(t_18_3);
    float t_19_4 = static_cast<float>(t_18_4);
    float t_19_5 = static_cast<float>(t_18_5);
    float t_19_6 = static_cast<float>(t_18_6);
    float t_19_7 = static_cast<float>(t_18_7);
    float y_0 = (t_17_0 * t_19_0);
    float y_1 = (t_17_1 * t_19_1);
    float y_2 = (t_17_2 * t_19_2);
    float y_3 = (t_17_3 * t_19_3);
    float y_4 = (t_17_4 * t_19_4);
    float y_5 = (t_17_5 * t_19_5);
    float y_6 = (t_17_6 * t_19_6);
    float y_7 = (t_17_7 * t_19_7);
    // 97: tl.store(out_ptr + row * n_cols + offs, y, mask=mask)
    __half t_22_0 = mf_cast<__half>(y_0);
    __half t_22_1 = mf_cast<__half>(y_1);
    __half t_22_2 = mf_cast<__half>(y_2);
    __half t_22_3 = mf_cast<__half>(y_3);
    __half t_22_4 = mf_cast<__half>(y_4);
    __half t_22_5 = mf_cast<__half>(y_5);
    __half t_22_6 = mf_cast<__half>(y_6);
    __half t_22_7 = mf_cast<__half>(y_7);
    if (mask) {
      *reinterpret_cast<mf_vec<8, __half>*>((t_21 + offs)) = mf_vec<8, __half>{{t_22_0, t_22_1, t_22_2, t_22_3, t_22_4, t_22_5, t_22_6, t_22_7}};
    }
  }
} else {
  // 90: row = tl.program_id(0)
  // 91: offs = tl.arange(0, BLOCK)
  // 92: mask = offs < n_cols
  // 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
  int t = (int(blockIdx.x) * mf_n_cols);
  decltype(x_ptr) t_1 = (x_ptr + t);
  int t_4 = (int(blockIdx.x) * mf_n_cols);
  decltype(res_ptr) t_5 = (res_ptr + t_4);
  float h[32];
  int t_8 = (int(blockIdx.x) * mf_n_cols);
  decltype(sum_ptr) t_9 = (sum_ptr + t_8);
  float t_11[32];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 8) {
    int offs = ((k * 256) + (int(threadIdx.x) * 8));
    bool mask = (offs < mf_n_cols);
    __half t_2_0;
    __half t_2_1;
    __half t_2_2;
    __half t_2_3;
    __half t_2_4;
    __half t_2_5;
    __half t_2_6;
    __half t_2_7;
    if (mask) {
      t_2_0 = (t_1 + offs)[0];
      t_2_1 = (t_1 + offs)[1];
      t_2_2 = (t_1 + offs)[2];
      t_2_3 = (t_1 + offs)[3];
      t_2_4 = (t_1 + offs)[4];
      t_2_5 = (t_1 + offs)[5];
      t_2_6 = (t_1 + offs)[6];
      t_2_7 = (t_1 + offs)[7];
    } else {
      t_2_0 = __float2half(0.0f);
      t_2_1 = __float2half(0.0f);
      t_2_2 = __float2half(0.0f);
      t_2_3 = __float2half(0.0f);
      t_2_4 = __float2half(0.0f);
      t_2_5 = __float2half(0.0f);
      t_2_6 = __float2half(0.0f);
      t_2_7 = __float2half(0.0f);
    }
    float t_3_0 = static_cast<float>(t_2_0);
    float t_3_1 = static_cast<float>(t_2_1);
    float t_3_2 = static_cast<float>(t_2_2);
    float t_3_3 = static_cast<float>(t_2_3);
    float t_3_4 = static_cast<float>(t_2_4);
    float t_3_5 = static_cast<float>(t_2_5);
    float t_3_6 = static_cast<float>(t_2_6);
    float t_3_7 = static_cast<float>(t_2_7);
    // 94: + tl.load(res_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    __half t_6_0;
    __half t_6_1;
    __half t_6_2;
    __half t_6_3;
    __half t_6_4;
    __half t_6_5;
    __half t_6_6;
    __half t_6_7;
    if (mask) {
      t_6_0 = (t_5 + offs)[0];
      t_6_1 = (t_5 + offs)[1];
      t_6_2 = (t_5 + offs)[2];
      t_6_3 = (t_5 + offs)[3];
      t_6_4 = (t_5 + offs)[4];
      t_6_5 = (t_5 + offs)[5];
      t_6_6 = (t_5 + offs)[6];
      t_6_7 = (t_5 + offs)[7];
    } else {
      t_6_0 = __float2half(0.0f);
      t_6_1 = __float2half(0.0f);
      t_6_2 = __float2half(0.0f);
      t_6_3 = __float2half(0.0f);
      t_6_4 = __float2half(0.0f);
      t_6_5 = __float2half(0.0f);
      t_6_6 = __float2half(0.0f);
      t_6_7 = __float2half(0.0f);
    }
    float t_7_0 = static_cast<float>(t_6_0);
    float t_7_1 = static_cast<float>(t_6_1);
    float t_7_2 = static_cast<float>(t_6_2);
    float t_7_3 = static_cast<float>(t_6_3);
    float t_7_4 = static_cast<float>(t_6_4);
    float t_7_5 = static_cast<float>(t_6_5);
    float t_7_6 = static_cast<float>(t_6_6);
    float t_7_7 = static_cast<float>(t_6_7);
    // 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    h[k] = (t_3_0 + t_7_0);
    h[(k + 1)] = (t_3_1 + t_7_1);
    h[(k + 2)] = (t_3_2 + t_7_2);
    h[(k + 3)] = (t_3_3 + t_7_3);
    h[(k + 4)] = (t_3_4 + t_7_4);
    h[(k + 5)] = (t_3_5 + t_7_5);
    h[(k + 6)] = (t_3_6 + t_7_6);
    h[(k + 7)] = (t_3_7 + t_7_7);
    // 95: tl.store(sum_ptr + row * n_cols + offs, h, mask=mask)
    __half t_10_0 = mf_cast<__half>(h[k]);
    __half t_10_1 = mf_cast<__half>(h[(k + 1)]);
    __half t_10_2 = mf_cast<__half>(h[(k + 2)]);
    __half t_10_3 = mf_cast<__half>(h[(k + 3)]);
    __half t_10_4 = mf_cast<__half>(h[(k + 4)]);
    __half t_10_5 = mf_cast<__half>(h[(k + 5)]);
    __half t_10_6 = mf_cast<__half>(h[(k + 6)]);
    __half t_10_7 = mf_cast<__half>(h[(k + 7)]);
    if (mask) {
      (t_9 + offs)[0] = t_10_0;
      (t_9 + offs)[1] = t_10_1;
      (t_9 + offs)[2] = t_10_2;
      (t_9 + offs)[3] = t_10_3;
      (t_9 + offs)[4] = t_10_4;
      (t_9 + offs)[5] = t_10_5;
      (t_9 + offs)[6] = t_10_6;
      (t_9 + offs)[7] = t_10_7;
    }
    // 68: rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / n_cols + eps)
    t_11[k] = (h[k] * h[k]);
    t_11[(k + 1)] = (h[(k + 1)] * h[(k + 1)]);
    t_11[(k + 2)] = (h[(k + 2)] * h[(k + 2)]);
    t_11[(k + 3)] = (h[(k + 3)] * h[(k + 3)]);
    t_11[(k + 4)] = (h[(k + 4)] * h[(k + 4)]);
    t_11[(k + 5)] = (h[(k + 5)] * h[(k + 5)]);
    t_11[(k + 6)] = (h[(k + 6)] * h[(k + 6)]);
    t_11[(k + 7)] = (h[(k + 7)] * h[(k + 7)]);
  }
  float acc[1];
  acc[0] = t_11[0];
  acc[0] = (acc[0] + t_11[1]);
  acc[0] = (acc[0] + t_11[2]);
  acc[0] = (acc[0] + t_11[3]);
  acc[0] = (acc[0] + t_11[4]);
  acc[0] = (acc[0] + t_11[5]);
  acc[0] = (acc[0] + t_11[6]);
  acc[0] = (acc[0] + t_11[7]);
  acc[0] = (acc[0] + t_11[8]);
  acc[0] = (acc[0] + t_11[9]);
  acc[0] = (acc[0] + t_11[10]);
  acc[0] = (acc[0] + t_11[11]);
  acc[0] = (acc[0] + t_11[12]);
  acc[0] = (acc[0] + t_11[13]);
  acc[0] = (acc[0] + t_11[14]);
  acc[0] = (acc[0] + t_11[15]);
  acc[0] = (acc[0] + t_11[16]);
  acc[0] = (acc[0] + t_11[17]);
  acc[0] = (acc[0] + t_11[18]);
  acc[0] = (acc[0] + t_11[19]);
  acc[0] = (acc[0] + t_11[20]);
  acc[0] = (acc[0] + t_11[21]);
  acc[0] = (acc[0] + t_11[22]);
  acc[0] = (acc[0] + t_11[23]);
  acc[0] = (acc[0] + t_11[24]);
  acc[0] = (acc[0] + t_11[25]);
  acc[0] = (acc[0] + t_11[26]);
  acc[0] = (acc[0] + t_11[27]);
  acc[0] = (acc[0] + t_11[28]);
  acc[0] = (acc[0] + t_11[29]);
  acc[0] = (acc[0] + t_11[30]);
  acc[0] = (acc[0] + t_11[31]);
  float partner = __shfl_xor_sync(0xffffffffu, acc[0], 1);
  acc[0] = (acc[0] + partner);
  float partner_1 = __shfl_xor_sync(0xffffffffu, acc[0], 2);
  acc[0] = (acc[0] + partner_1);
  float partner_2 = __shfl_xor_sync(0xffffffffu, acc[0], 4);
  acc[0] = (acc[0] + partner_2);
  float partner_3 = __shfl_xor_sync(0xffffffffu, acc[0], 8);
  acc[0] = (acc[0] + partner_3);
  float partner_4 = __shfl_xor_sync(0xffffffffu, acc[0], 16);
  acc[0] = (acc[0] + partner_4);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    acc_smem[int(threadIdx.x / 32u)] = acc[0];
  }
  __syncthreads();
  acc[0] = acc_smem[0];
  acc[0] = (acc[0] + acc_smem[1]);
  acc[0] = (acc[0] + acc_smem[2]);
  acc[0] = (acc[0] + acc_smem[3]);
  acc[0] = (acc[0] + acc_smem[4]);
  acc[0] = (acc[0] + acc_smem[5]);
  acc[0] = (acc[0] + acc_smem[6]);
  acc[0] = (acc[0] + acc_smem[7]);
  float t_12 = acc[0];
  float t_13 = static_cast<float>(mf_n_cols);
  float t_14 = mf_fdiv(t_12, t_13);
  float t_15 = (t_14 + mf_eps);
  float t_16 = mf_sqrt(t_15);
  float rstd = mf_fdiv(1.0f, t_16);
  // 69: return h * rstd * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
  int t_20 = (int(blockIdx.x) * mf_n_cols);
  decltype(out_ptr) t_21 = (out_ptr + t_20);
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 8) {
    float t_17_0 = (h[k] * rstd);
    float t_17_1 = (h[(k + 1)] * rstd);
    float t_17_2 = (h[(k + 2)] * rstd);
    float t_17_3 = (h[(k + 3)] * rstd);
    float t_17_4 = (h[(k + 4)] * rstd);
    float t_17_5 = (h[(k + 5)] * rstd);
    float t_17_6 = (h[(k + 6)] * rstd);
    float t_17_7 = (h[(k + 7)] * rstd);
    int offs = ((k * 256) + (int(threadIdx.x) * 8));
    bool mask = (offs < mf_n_cols);
    __half t_18_0;
    __half t_18_1;
    __half t_18_2;
    __half t_18_3;
    __half t_18_4;
    __half t_18_5;
    __half t_18_6;
    __half t_18_7;
    if (mask) {
      t_18_0 = (w_ptr + offs)[0];
      t_18_1 = (w_ptr + offs)[1];
      t_18_2 = (w_ptr + offs)[2];
      t_18_3 = (w_ptr + offs)[3];
      t_18_4 = (w_ptr + offs)[4];
      t_18_5 = (w_ptr + offs)[5];
      t_18_6 = (w_ptr + offs)[6];
      t_18_7 = (w_ptr + offs)[7];
    } else {
      t_18_0 = __float2half(0.0f);
      t_18_1 = __float2half(0.0f);
      t_18_2 = __float2half(0.0f);
      t_18_3 = __float2half(0.0f);
      t_18_4 = __float2half(0.0f);
      t_18_5 = __float2half(0.0f);
      t_18_6 = __float2half(0.0f);
      t_18_7 = __float2half(0.0f);
    }
    float t_19_0 = static_cast<float>(t_18_0);
    float t_19_1 = static_cast<float>(t_18_1);
    float t_19_2 = static_cast<float>(t_18_2);
    float t_19_3 = static_cast<float>(t_18_3);
    float t_19_4 = static_cast<float>(t_18_4);
    float t_19_5 = static_cast<float>(t_18_5);
    float t_19_6 = static_cast<float>(t_18_6);
    float t_19_7 = static_cast<float>(t_18_7);
    float y_0 = (t_17_0 * t_19_0);
    float y_1 = (t_17_1 * t_19_1);
    float y_2 = (t_17_2 * t_19_2);
    float y_3 = (t_17_3 * t_19_3);
    float y_4 = (t_17_4 * t_19_4);
    float y_5 = (t_17_5 * t_19_5);
    float y_6 = (t_17_6 * t_19_6);
    float y_7 = (t_17_7 * t_19_7);
    // 97: tl.store(out_ptr + row * n_cols + offs, y, mask=mask)
    __half t_22_0 = mf_cast<__half>(y_0);
    __half t_22_1 = mf_cast<__half>(y_1);
    __half t_22_2 = mf_cast<__half>(y_2);
    __half t_22_3 = mf_cast<__half>(y_3);
    __half t_22_4 = mf_cast<__half>(y_4);
    __half t_22_5 = mf_cast<__half>(y_5);
    __half t_22_6 = mf_cast<__half>(y_6);
    __half t_22_7 = mf_cast<__half>(y_7);
    if (mask) {
      (t_21 + offs)[0] = t_22_0;
      (t_21 + offs)[1] = t_22_1;
      (t_21 + offs)[2] = t_22_2;
      (t_21 + offs)[3] = t_22_3;
      (t_21 + offs)[4] = t_22_4;
      (t_21 + offs)[5] = t_22_5;
      (t_21 + offs)[6] = t_22_6;
      (t_21 + offs)[7] = t_22_7;
    }
  }
}
