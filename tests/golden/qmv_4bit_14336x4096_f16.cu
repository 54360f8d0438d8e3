
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

// Threadgroup vector stores whose alignment is not known: in one access when the address is
// aligned, element by element otherwise.
template <int N, typename T, typename... V> __device__ __forceinline__ void mf_store_vec(T* p, V... values) {
  const mf_vec<N, T> x{{values...}};
  if (reinterpret_cast<uintptr_t>(p) % sizeof(x) == 0) {
    *reinterpret_cast<mf_vec<N, T>*>(p) = x;
  } else {
#pragma unroll
    for (int i = 0; i < N; i++) p[i] = x.v[i];
  }
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

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_N = N[0];
const auto mf_K = K[0];
float* x_1_smem = reinterpret_cast<float*>(mf_shared + 0);
if (mf_is_aligned(x_ptr, 8)) {
  // 52: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
  int t = (int(blockIdx.x) * 8);
  // 53: row_ok = rows < N
  // 54: acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
  // 55: for k0 in range(0, K, BLOCK_K):
  float acc[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 256) {
    // 56: ks = k0 + tl.arange(0, BLOCK_K)
    // 57: k_ok = ks < K
    // 58: mask = row_ok[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + (ks // PER_WORD)[None, :], mask=mask, other=0)
    int t_1 = (mf_K / 8);
    int rows = t;
    bool row_ok = (rows < mf_N);
    unsigned words[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      int rows_1 = (t + (((k / 8) * 2) + int(threadIdx.x / 32u)));
      int ks_1 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      bool row_ok_1 = (rows_1 < mf_N);
      bool k_ok_1 = (ks_1 < mf_K);
      bool mask = (row_ok_1 & k_ok_1);
      words[k] = (mask ? ((wq_ptr + (rows_1 * t_1)) + (ks_1 / 8))[0] : 0u);
    }
    // 60: q = ((words >> ((ks % PER_WORD) * BITS)[None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    unsigned t_2[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      int ks_2 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      t_2[k] = (words[k] >> static_cast<unsigned>(((ks_2 % 8) * 4)));
    }
    unsigned t_3[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      t_3[k] = (t_2[k] & 15u);
    }
    float q[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      q[k] = static_cast<float>(t_3[k]);
    }
    // 61: groups = rows[:, None] * (K // GROUP) + (ks // GROUP)[None, :]
    int t_4 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask, other=0.0).to(tl.float32)
    __half t_5[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      int rows_2 = (t + (((k / 8) * 2) + int(threadIdx.x / 32u)));
      int ks_3 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      int groups_1 = ((rows_2 * t_4) + (ks_3 / 64));
      bool row_ok_2 = (rows_2 < mf_N);
      bool k_ok_2 = (ks_3 < mf_K);
      bool mask = (row_ok_2 & k_ok_2);
      t_5[k] = (mask ? (scales_ptr + groups_1)[0] : __float2half(0.0f));
    }
    float scale[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      scale[k] = static_cast<float>(t_5[k]);
    }
    // 63: bias = tl.load(biases_ptr + groups, mask=mask, other=0.0).to(tl.float32)
    __half t_6[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      int rows_3 = (t + (((k / 8) * 2) + int(threadIdx.x / 32u)));
      int ks_4 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      int groups_2 = ((rows_3 * t_4) + (ks_4 / 64));
      bool row_ok_3 = (rows_3 < mf_N);
      bool k_ok_3 = (ks_4 < mf_K);
      bool mask = (row_ok_3 & k_ok_3);
      t_6[k] = (mask ? (biases_ptr + groups_2)[0] : __float2half(0.0f));
    }
    float bias[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      bias[k] = static_cast<float>(t_6[k]);
    }
    // 64: x = tl.load(x_ptr + ks, mask=k_ok, other=0.0).to(tl.float32)
    __half t_7[4];
    int ks_5 = (k0 + (int(threadIdx.x) * 4));
    bool k_ok_4 = (ks_5 < mf_K);
    {
      mf_vec<4, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, (x_ptr + ks_5), k_ok_4);
      t_7[0] = mf_v.v[0];
      t_7[1] = mf_v.v[1];
      t_7[2] = mf_v.v[2];
      t_7[3] = mf_v.v[3];
    }
    float x[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      x[k] = static_cast<float>(t_7[k]);
    }
    // 65: acc += tl.sum((scale * q + bias) * x[None, :], axis=1)
    float t_8[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      t_8[k] = (scale[k] * q[k]);
    }
    float t_9[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      t_9[k] = (t_8[k] + bias[k]);
    }
    __syncthreads();
    mf_store_vec<4>((x_1_smem + (int(threadIdx.x) * 4)), x[0], x[1], x[2], x[3]);
    __syncthreads();
    float t_10[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      t_10[k] = (t_9[k] * x_1_smem[(((k % 8) * 32) + int(threadIdx.x % 32u))]);
    }
    float acc_2[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      acc_2[k] = t_10[(k * 8)];
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 1)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 2)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 3)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 4)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 5)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 6)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 7)]);
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float partner = __shfl_xor_sync(0xffffffffu, acc_2[k], 1);
      acc_2[k] = (acc_2[k] + partner);
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float partner_1 = __shfl_xor_sync(0xffffffffu, acc_2[k], 2);
      acc_2[k] = (acc_2[k] + partner_1);
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float partner_2 = __shfl_xor_sync(0xffffffffu, acc_2[k], 4);
      acc_2[k] = (acc_2[k] + partner_2);
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float partner_3 = __shfl_xor_sync(0xffffffffu, acc_2[k], 8);
      acc_2[k] = (acc_2[k] + partner_3);
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float partner_4 = __shfl_xor_sync(0xffffffffu, acc_2[k], 16);
      acc_2[k] = (acc_2[k] + partner_4);
    }
    float acc_3[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      acc_3[k] = (acc[k] + acc_2[k]);
    }
    float acc_4[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      acc_4[k] = acc_3[k];
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      acc[k] = acc_4[k];
    }
  }
  // 66: tl.store(out_ptr + rows, acc, mask=row_ok)
  __half t_11[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    t_11[k] = mf_cast<__half>(acc[k]);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    int rows = (t + ((((k * 8) / 8) * 2) + int(threadIdx.x / 32u)));
    bool row_ok = (rows < mf_N);
    if (((int(threadIdx.x % 32u) == 0) && row_ok)) {
      *((out_ptr + rows)) = t_11[k];
    }
  }
} else {
  // 52: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
  int t = (int(blockIdx.x) * 8);
  // 53: row_ok = rows < N
  // 54: acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
  // 55: for k0 in range(0, K, BLOCK_K):
  float acc[4];
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 256) {
    // 56: ks = k0 + tl.arange(0, BLOCK_K)
    // 57: k_ok = ks < K
    // 58: mask = row_ok[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + (ks // PER_WORD)[None, :], mask=mask, other=0)
    int t_1 = (mf_K / 8);
    int rows = t;
    bool row_ok = (rows < mf_N);
    unsigned words[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      int rows_1 = (t + (((k / 8) * 2) + int(threadIdx.x / 32u)));
      int ks_1 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      bool row_ok_1 = (rows_1 < mf_N);
      bool k_ok_1 = (ks_1 < mf_K);
      bool mask = (row_ok_1 & k_ok_1);
      words[k] = (mask ? ((wq_ptr + (rows_1 * t_1)) + (ks_1 / 8))[0] : 0u);
    }
    // 60: q = ((words >> ((ks % PER_WORD) * BITS)[None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    unsigned t_2[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      int ks_2 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      t_2[k] = (words[k] >> static_cast<unsigned>(((ks_2 % 8) * 4)));
    }
    unsigned t_3[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      t_3[k] = (t_2[k] & 15u);
    }
    float q[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      q[k] = static_cast<float>(t_3[k]);
    }
    // 61: groups = rows[:, None] * (K // GROUP) + (ks // GROUP)[None, :]
    int t_4 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask, other=0.0).to(tl.float32)
    __half t_5[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      int rows_2 = (t + (((k / 8) * 2) + int(threadIdx.x / 32u)));
      int ks_3 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      int groups_1 = ((rows_2 * t_4) + (ks_3 / 64));
      bool row_ok_2 = (rows_2 < mf_N);
      bool k_ok_2 = (ks_3 < mf_K);
      bool mask = (row_ok_2 & k_ok_2);
      t_5[k] = (mask ? (scales_ptr + groups_1)[0] : __float2half(0.0f));
    }
    float scale[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      scale[k] = static_cast<float>(t_5[k]);
    }
    // 63: bias = tl.load(biases_ptr + groups, mask=mask, other=0.0).to(tl.float32)
    __half t_6[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      int rows_3 = (t + (((k / 8) * 2) + int(threadIdx.x / 32u)));
      int ks_4 = (k0 + (((k % 8) * 32) + int(threadIdx.x % 32u)));
      int groups_2 = ((rows_3 * t_4) + (ks_4 / 64));
      bool row_ok_3 = (rows_3 < mf_N);
      bool k_ok_3 = (ks_4 < mf_K);
      bool mask = (row_ok_3 & k_ok_3);
      t_6[k] = (mask ? (biases_ptr + groups_2)[0] : __float2half(0.0f));
    }
    float bias[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      bias[k] = static_cast<float>(t_6[k]);
    }
    // 64: x = tl.load(x_ptr + ks, mask=k_ok, other=0.0).to(tl.float32)
    __half t_7[4];
    int ks_5 = (k0 + (int(threadIdx.x) * 4));
    bool k_ok_4 = (ks_5 < mf_K);
    if (k_ok_4) {
      t_7[0] = (x_ptr + ks_5)[0];
      t_7[1] = (x_ptr + ks_5)[1];
      t_7[2] = (x_ptr + ks_5)[2];
      t_7[3] = (x_ptr + ks_5)[3];
    } else {
      t_7[0] = __float2half(0.0f);
      t_7[1] = __float2half(0.0f);
      t_7[2] = __float2half(0.0f);
      t_7[3] = __float2half(0.0f);
    }
    float x[4];
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      x[k] = static_cast<float>(t_7[k]);
    }
    // 65: acc += tl.sum((scale * q + bias) * x[None, :], axis=1)
    float t_8[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      t_8[k] = (scale[k] * q[k]);
    }
    float t_9[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      t_9[k] = (t_8[k] + bias[k]);
    }
    __syncthreads();
    mf_store_vec<4>((x_1_smem + (int(threadIdx.x) * 4)), x[0], x[1], x[2], x[3]);
    __syncthreads();
    float t_10[32];
    #pragma unroll 1
    for (int k = 0; (k < 32); k += 1) {
      t_10[k] = (t_9[k] * x_1_smem[(((k % 8) * 32) + int(threadIdx.x % 32u))]);
    }
    float acc_2[4];
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      acc_2[k] = t_10[(k * 8)];
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 1)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 2)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 3)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 4)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 5)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 6)]);
      acc_2[k] = (acc_2[k] + t_10[((k * 8) + 7)]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      float partner = __shfl_xor_sync(0xffffffffu, acc_2[k], 1);
      acc_2[k] = (acc_2[k] + partner);
    }
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      float partner_1 = __shfl_xor_sync(0xffffffffu, acc_2[k], 2);
      acc_2[k] = (acc_2[k] + partner_1);
    }
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      float partner_2 = __shfl_xor_sync(0xffffffffu, acc_2[k], 4);
      acc_2[k] = (acc_2[k] + partner_2);
    }
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      float partner_3 = __shfl_xor_sync(0xffffffffu, acc_2[k], 8);
      acc_2[k] = (acc_2[k] + partner_3);
    }
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      float partner_4 = __shfl_xor_sync(0xffffffffu, acc_2[k], 16);
      acc_2[k] = (acc_2[k] + partner_4);
    }
    float acc_3[4];
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      acc_3[k] = (acc[k] + acc_2[k]);
    }
    float acc_4[4];
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      acc_4[k] = acc_3[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      acc[k] = acc_4[k];
    }
  }
  // 66: tl.store(out_ptr + rows, acc, mask=row_ok)
  __half t_11[4];
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    t_11[k] = mf_cast<__half>(acc[k]);
  }
  #pragma unroll 1
  for (int k = 0; (k < 4); k += 1) {
    int rows = (t + ((((k * 8) / 8) * 2) + int(threadIdx.x / 32u)));
    bool row_ok = (rows < mf_N);
    if (((int(threadIdx.x % 32u) == 0) && row_ok)) {
      *((out_ptr + rows)) = t_11[k];
    }
  }
}
