
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

const auto mf_N = N[0];
const auto mf_K = K[0];
const auto mf_res_ptr = res_ptr[0];
if ((mf_is_aligned(wq_ptr, 16) && mf_is_aligned(x_ptr, 16))) {
  // 145: qmv_rows(x_ptr, x_ptr, 1.0, wq_ptr, scales_ptr, biases_ptr, out_ptr, res_ptr, tl.program_id(0), N, K, GROUP, BITS,
  // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
  int t = (int(blockIdx.x) * 32);
  // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 126: for k0 in range(0, K, BLOCK_K):
  float acc[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
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
    unsigned words[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 4) {
      int rows_1 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_1 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_1 = ((kw_1 / 8) < t_2);
      bool mask = ((rows_1 < mf_N) & k_ok_1);
      {
        mf_vec<4, unsigned> mf_v{{0u, 0u, 0u, 0u}};
        mf_load_masked(mf_v, ((wq_ptr + (rows_1 * t_3)) + kw_1), mask);
        words[k] = mf_v.v[0];
        words[(k + 1)] = mf_v.v[1];
        words[(k + 2)] = mf_v.v[2];
        words[(k + 3)] = mf_v.v[3];
      }
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[128];
    #pragma unroll
    for (int k = 0; (k < 128); k += 1) {
      unsigned t_4 = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<unsigned>(((k % 8) * 4)));
      unsigned t_5 = (t_4 & 15u);
      q[k] = static_cast<float>(t_5);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_6 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bool mask = ((rows < mf_N) & k_ok);
    float scale[16];
    float bias[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 4) {
      int rows_2 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_2 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
      bool k_ok_2 = ((kw_2 / 8) < t_2);
      bool mask_1 = ((rows_2 < mf_N) & k_ok_2);
      __half t_7_0 = (mask_1 ? (scales_ptr + groups_1)[0] : __float2half(0.0f));
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
      __half t_8_0 = (mask_2 ? (biases_ptr + groups_2)[0] : __float2half(0.0f));
      __half t_8_1 = t_8_0;
      __half t_8_2 = t_8_0;
      __half t_8_3 = t_8_0;
      bias[k] = static_cast<float>(t_8_0);
      bias[(k + 1)] = static_cast<float>(t_8_1);
      bias[(k + 2)] = static_cast<float>(t_8_2);
      bias[(k + 3)] = static_cast<float>(t_8_3);
    }
    // 64: return q * scale + bias, kw, k_ok
    float w[128];
    #pragma unroll
    for (int k = 0; (k < 128); k += 1) {
      float t_9 = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
      w[k] = (t_9 + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
    }
    // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
    // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
    float x[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 8) {
      int kw_4 = (t_1 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
      int offs_1 = (kw_4 * 8);
      bool k_ok_4 = ((kw_4 / 8) < t_2);
      __half t_10_0;
      __half t_10_1;
      __half t_10_2;
      __half t_10_3;
      __half t_10_4;
      __half t_10_5;
      __half t_10_6;
      __half t_10_7;
      {
        mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
        mf_load_masked(mf_v, (x_ptr + offs_1), k_ok_4);
        t_10_0 = mf_v.v[0];
        t_10_1 = mf_v.v[1];
        t_10_2 = mf_v.v[2];
        t_10_3 = mf_v.v[3];
        t_10_4 = mf_v.v[4];
        t_10_5 = mf_v.v[5];
        t_10_6 = mf_v.v[6];
        t_10_7 = mf_v.v[7];
      }
      x[k] = static_cast<float>(t_10_0);
      x[(k + 1)] = static_cast<float>(t_10_1);
      x[(k + 2)] = static_cast<float>(t_10_2);
      x[(k + 3)] = static_cast<float>(t_10_3);
      x[(k + 4)] = static_cast<float>(t_10_4);
      x[(k + 5)] = static_cast<float>(t_10_5);
      x[(k + 6)] = static_cast<float>(t_10_6);
      x[(k + 7)] = static_cast<float>(t_10_7);
    }
    // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
    float t_11[128];
    #pragma unroll
    for (int k = 0; (k < 128); k += 1) {
      t_11[k] = (w[k] * x[((((k / 8) % 4) * 8) + (k % 8))]);
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      float acc_2 = t_11[(((k / 4) * 32) + ((k % 4) * 8))];
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
      float acc_3 = (acc[k] + acc_2);
      float acc_4 = acc_3;
      acc[k] = acc_4;
    }
  }
  // 129: y = tl.sum(acc, axis=1) * inv_rms
  float acc_5[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_5[k] = acc[(k * 4)];
    acc_5[k] = (acc_5[k] + acc[((k * 4) + 1)]);
    acc_5[k] = (acc_5[k] + acc[((k * 4) + 2)]);
    acc_5[k] = (acc_5[k] + acc[((k * 4) + 3)]);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner = __shfl_xor_sync(0xffffffffu, acc_5[k], 1);
    acc_5[k] = (acc_5[k] + partner);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_1 = __shfl_xor_sync(0xffffffffu, acc_5[k], 2);
    acc_5[k] = (acc_5[k] + partner_1);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_2 = __shfl_xor_sync(0xffffffffu, acc_5[k], 4);
    acc_5[k] = (acc_5[k] + partner_2);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_3 = __shfl_xor_sync(0xffffffffu, acc_5[k], 8);
    acc_5[k] = (acc_5[k] + partner_3);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float y = (acc_5[k] * 1.0f);
    // 132: tl.store(out_ptr + rows, y, mask=rows < N)
    __half t_12 = mf_cast<__half>(y);
    int rows = (t + (((k * 4) * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
    if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows < mf_N))) {
      *((out_ptr + rows)) = t_12;
    }
  }
} else {
  // 145: qmv_rows(x_ptr, x_ptr, 1.0, wq_ptr, scales_ptr, biases_ptr, out_ptr, res_ptr, tl.program_id(0), N, K, GROUP, BITS,
  // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
  int t = (int(blockIdx.x) * 32);
  // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 126: for k0 in range(0, K, BLOCK_K):
  float acc[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
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
    unsigned words[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 4) {
      int rows_1 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_1 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_1 = ((kw_1 / 8) < t_2);
      bool mask = ((rows_1 < mf_N) & k_ok_1);
      if (mask) {
        words[k] = ((wq_ptr + (rows_1 * t_3)) + kw_1)[0];
        words[(k + 1)] = ((wq_ptr + (rows_1 * t_3)) + kw_1)[1];
        words[(k + 2)] = ((wq_ptr + (rows_1 * t_3)) + kw_1)[2];
        words[(k + 3)] = ((wq_ptr + (rows_1 * t_3)) + kw_1)[3];
      } else {
        words[k] = 0u;
        words[(k + 1)] = 0u;
        words[(k + 2)] = 0u;
        words[(k + 3)] = 0u;
      }
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[128];
    #pragma unroll 1
    for (int k = 0; (k < 128); k += 1) {
      unsigned t_4 = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<unsigned>(((k % 8) * 4)));
      unsigned t_5 = (t_4 & 15u);
      q[k] = static_cast<float>(t_5);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_6 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    bool mask = ((rows < mf_N) & k_ok);
    float scale[16];
    float bias[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 4) {
      int rows_2 = (t + ((k * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int kw_2 = (t_1 + ((int(threadIdx.x % 32u) % 16) * 4));
      int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
      bool k_ok_2 = ((kw_2 / 8) < t_2);
      bool mask_1 = ((rows_2 < mf_N) & k_ok_2);
      __half t_7_0 = (mask_1 ? (scales_ptr + groups_1)[0] : __float2half(0.0f));
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
      __half t_8_0 = (mask_2 ? (biases_ptr + groups_2)[0] : __float2half(0.0f));
      __half t_8_1 = t_8_0;
      __half t_8_2 = t_8_0;
      __half t_8_3 = t_8_0;
      bias[k] = static_cast<float>(t_8_0);
      bias[(k + 1)] = static_cast<float>(t_8_1);
      bias[(k + 2)] = static_cast<float>(t_8_2);
      bias[(k + 3)] = static_cast<float>(t_8_3);
    }
    // 64: return q * scale + bias, kw, k_ok
    float w[128];
    #pragma unroll 1
    for (int k = 0; (k < 128); k += 1) {
      float t_9 = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
      w[k] = (t_9 + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
    }
    // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
    // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
    float x[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 8) {
      int kw_4 = (t_1 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
      int offs_1 = (kw_4 * 8);
      bool k_ok_4 = ((kw_4 / 8) < t_2);
      __half t_10_0;
      __half t_10_1;
      __half t_10_2;
      __half t_10_3;
      __half t_10_4;
      __half t_10_5;
      __half t_10_6;
      __half t_10_7;
      if (k_ok_4) {
        t_10_0 = (x_ptr + offs_1)[0];
        t_10_1 = (x_ptr + offs_1)[1];
        t_10_2 = (x_ptr + offs_1)[2];
        t_10_3 = (x_ptr + offs_1)[3];
        t_10_4 = (x_ptr + offs_1)[4];
        t_10_5 = (x_ptr + offs_1)[5];
        t_10_6 = (x_ptr + offs_1)[6];
        t_10_7 = (x_ptr + offs_1)[7];
      } else {
        t_10_0 = __float2half(0.0f);
        t_10_1 = __float2half(0.0f);
        t_10_2 = __float2half(0.0f);
        t_10_3 = __float2half(0.0f);
        t_10_4 = __float2half(0.0f);
        t_10_5 = __float2half(0.0f);
        t_10_6 = __float2half(0.0f);
        t_10_7 = __float2half(0.0f);
      }
      x[k] = static_cast<float>(t_10_0);
      x[(k + 1)] = static_cast<float>(t_10_1);
      x[(k + 2)] = static_cast<float>(t_10_2);
      x[(k + 3)] = static_cast<float>(t_10_3);
      x[(k + 4)] = static_cast<float>(t_10_4);
      x[(k + 5)] = static_cast<float>(t_10_5);
      x[(k + 6)] = static_cast<float>(t_10_6);
      x[(k + 7)] = static_cast<float>(t_10_7);
    }
    // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
    float t_11[128];
    #pragma unroll 1
    for (int k = 0; (k < 128); k += 1) {
      t_11[k] = (w[k] * x[((((k / 8) % 4) * 8) + (k % 8))]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      float acc_2 = t_11[(((k / 4) * 32) + ((k % 4) * 8))];
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
      acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
      float acc_3 = (acc[k] + acc_2);
      float acc_4 = acc_3;
      acc[k] = acc_4;
    }
  }
  // 129: y = tl.sum(acc, axis=1) * inv_rms
  float acc_5[4];
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    acc_5[k] = acc[(k * 4)];
    acc_5[k] = (acc_5[k] + acc[((k * 4) + 1)]);
    acc_5[k] = (acc_5[k] + acc[((k * 4) + 2)]);
    acc_5[k] = (acc_5[k] + acc[((k * 4) + 3)]);
  }
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    float partner = __shfl_xor_sync(0xffffffffu, acc_5[k], 1);
    acc_5[k] = (acc_5[k] + partner);
  }
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    float partner_1 = __shfl_xor_sync(0xffffffffu, acc_5[k], 2);
    acc_5[k] = (acc_5[k] + partner_1);
  }
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    float partner_2 = __shfl_xor_sync(0xffffffffu, acc_5[k], 4);
    acc_5[k] = (acc_5[k] + partner_2);
  }
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    float partner_3 = __shfl_xor_sync(0xffffffffu, acc_5[k], 8);
    acc_5[k] = (acc_5[k] + partner_3);
  }
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    float y = (acc_5[k] * 1.0f);
    // 132: tl.store(out_ptr + rows, y, mask=rows < N)
    __half t_12 = mf_cast<__half>(y);
    int rows = (t + (((k * 4) * 2) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
    if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows < mf_N))) {
      *((out_ptr + rows)) = t_12;
    }
  }
}
