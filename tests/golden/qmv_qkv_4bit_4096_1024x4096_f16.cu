
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

const auto mf_NQ = NQ[0];
const auto mf_NKV = NKV[0];
const auto mf_K = K[0];
const auto mf_offset = offset[0];
const auto mf_pos_scale = pos_scale[0];
const auto mf_log_base = log_base[0];
const auto mf_norm_ptr = norm_ptr[0];
const auto mf_eps = eps[0];
const auto mf_qb_ptr = qb_ptr[0];
const auto mf_kb_ptr = kb_ptr[0];
const auto mf_vb_ptr = vb_ptr[0];
if ((((mf_is_aligned(wk_ptr, 16) && mf_is_aligned(wq_ptr, 16)) && mf_is_aligned(wv_ptr, 16)) && mf_is_aligned(x_ptr, 16))) {
  // 236: block = tl.program_id(0)
  // 237: q_blocks = tl.cdiv(NQ, BLOCK_N)
  int t = (mf_NQ + 8);
  int t_1 = (t - 1);
  int q_blocks = (t_1 / 8);
  // 238: kv_blocks = tl.cdiv(NKV, BLOCK_N)
  int t_2 = (mf_NKV + 8);
  int t_3 = (t_2 - 1);
  int kv_blocks = (t_3 / 8);
  // 242: if block < q_blocks:
  bool t_4 = (int(blockIdx.x) < q_blocks);
  if (t_4) {
    // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
    int t_5 = (int(blockIdx.x) * 8);
    // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    // 126: for k0 in range(0, K, BLOCK_K):
    float acc[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float acc_1 = 0.0f;
      acc[k] = acc_1;
    }
    for (int k0 = 0; (k0 < mf_K); k0 += 512) {
      // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
      int t_6 = (k0 / 8);
      // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
      int t_7 = (mf_K / 64);
      // 58: mask = (rows < N)[:, None] & k_ok[None, :]
      // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
      int t_8 = (mf_K / 8);
      unsigned words[4];
      int rows_1 = (t_5 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
      int kw_1 = (t_6 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_1 = ((kw_1 / 8) < t_7);
      bool mask = ((rows_1 < mf_NQ) & k_ok_1);
      {
        mf_vec<4, unsigned> mf_v{{0u, 0u, 0u, 0u}};
        mf_load_masked(mf_v, ((wq_ptr + (rows_1 * t_8)) + kw_1), mask);
        words[0] = mf_v.v[0];
        words[1] = mf_v.v[1];
        words[2] = mf_v.v[2];
        words[3] = mf_v.v[3];
      }
      // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
      float q[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 1) {
        unsigned t_9 = (words[(k / 8)] >> static_cast<unsigned>(((k % 8) * 4)));
        unsigned t_10 = (t_9 & 15u);
        q[k] = static_cast<float>(t_10);
      }
      // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
      int t_11 = (mf_K / 64);
      // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      __half t_12[4];
      int groups_1 = ((rows_1 * t_11) + (kw_1 / 8));
      t_12[0] = (mask ? (sq_ptr + groups_1)[0] : __float2half(0.0f));
      t_12[1] = t_12[0];
      t_12[2] = t_12[0];
      t_12[3] = t_12[0];
      float scale[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        scale[k] = static_cast<float>(t_12[k]);
      }
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      __half t_13[4];
      t_13[0] = (mask ? (bq_ptr + groups_1)[0] : __float2half(0.0f));
      t_13[1] = t_13[0];
      t_13[2] = t_13[0];
      t_13[3] = t_13[0];
      float bias[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        bias[k] = static_cast<float>(t_13[k]);
      }
      // 64: return q * scale + bias, kw, k_ok
      float w[32];
      float x[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 8) {
        float t_14_0 = (q[k] * scale[(k / 8)]);
        w[k] = (t_14_0 + bias[(k / 8)]);
        float t_14_1 = (q[(k + 1)] * scale[(k / 8)]);
        w[(k + 1)] = (t_14_1 + bias[(k / 8)]);
        float t_14_2 = (q[(k + 2)] * scale[(k / 8)]);
        w[(k + 2)] = (t_14_2 + bias[(k / 8)]);
        float t_14_3 = (q[(k + 3)] * scale[(k / 8)]);
        w[(k + 3)] = (t_14_3 + bias[(k / 8)]);
        float t_14_4 = (q[(k + 4)] * scale[(k / 8)]);
        w[(k + 4)] = (t_14_4 + bias[(k / 8)]);
        float t_14_5 = (q[(k + 5)] * scale[(k / 8)]);
        w[(k + 5)] = (t_14_5 + bias[(k / 8)]);
        float t_14_6 = (q[(k + 6)] * scale[(k / 8)]);
        w[(k + 6)] = (t_14_6 + bias[(k / 8)]);
        float t_14_7 = (q[(k + 7)] * scale[(k / 8)]);
        w[(k + 7)] = (t_14_7 + bias[(k / 8)]);
        // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
        // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
        int kw_2 = (t_6 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
        int offs_1 = (kw_2 * 8);
        bool k_ok_2 = ((kw_2 / 8) < t_7);
        __half t_15_0;
        __half t_15_1;
        __half t_15_2;
        __half t_15_3;
        __half t_15_4;
        __half t_15_5;
        __half t_15_6;
        __half t_15_7;
        {
          mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
          mf_load_masked(mf_v, (x_ptr + offs_1), k_ok_2);
          t_15_0 = mf_v.v[0];
          t_15_1 = mf_v.v[1];
          t_15_2 = mf_v.v[2];
          t_15_3 = mf_v.v[3];
          t_15_4 = mf_v.v[4];
          t_15_5 = mf_v.v[5];
          t_15_6 = mf_v.v[6];
          t_15_7 = mf_v.v[7];
        }
        x[k] = static_cast<float>(t_15_0);
        x[(k + 1)] = static_cast<float>(t_15_1);
        x[(k + 2)] = static_cast<float>(t_15_2);
        x[(k + 3)] = static_cast<float>(t_15_3);
        x[(k + 4)] = static_cast<float>(t_15_4);
        x[(k + 5)] = static_cast<float>(t_15_5);
        x[(k + 6)] = static_cast<float>(t_15_6);
        x[(k + 7)] = static_cast<float>(t_15_7);
      }
      // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
      float t_16[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 1) {
        t_16[k] = (w[k] * x[(((k / 8) * 8) + (k % 8))]);
      }
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        float acc_2 = t_16[(k * 8)];
        acc_2 = (acc_2 + t_16[((k * 8) + 1)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 2)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 3)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 4)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 5)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 6)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 7)]);
        float acc_3 = (acc[k] + acc_2);
        float acc_4 = acc_3;
        acc[k] = acc_4;
      }
    }
    // 129: y = tl.sum(acc, axis=1) * inv_rms
    float acc_5[1];
    acc_5[0] = acc[0];
    acc_5[0] = (acc_5[0] + acc[1]);
    acc_5[0] = (acc_5[0] + acc[2]);
    acc_5[0] = (acc_5[0] + acc[3]);
    float partner = __shfl_xor_sync(0xffffffffu, acc_5[0], 1);
    acc_5[0] = (acc_5[0] + partner);
    float partner_1 = __shfl_xor_sync(0xffffffffu, acc_5[0], 2);
    acc_5[0] = (acc_5[0] + partner_1);
    float partner_2 = __shfl_xor_sync(0xffffffffu, acc_5[0], 4);
    acc_5[0] = (acc_5[0] + partner_2);
    float partner_3 = __shfl_xor_sync(0xffffffffu, acc_5[0], 8);
    acc_5[0] = (acc_5[0] + partner_3);
    float y[1];
    y[0] = (acc_5[0] * 1.0f);
    // 132: tl.store(out_ptr + rows, y, mask=rows < N)
    __half t_17[1];
    t_17[0] = mf_cast<__half>(y[0]);
    int rows_2 = (t_5 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
    if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows_2 < mf_NQ))) {
      *((q_ptr + rows_2)) = t_17[0];
    }
  } else {
    // 249: elif block < q_blocks + kv_blocks:
    int t_18 = (q_blocks + kv_blocks);
    bool t_19 = (int(blockIdx.x) < t_18);
    if (t_19) {
      // 254: qmv_rows(x_ptr, norm_ptr, inv_rms, wk_ptr, sk_ptr, bk_ptr, k_ptr, kb_ptr, block - q_blocks, NKV, K, GROUP,
      int t_20 = (int(blockIdx.x) - q_blocks);
      // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
      int t_21 = (t_20 * 8);
      // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
      // 126: for k0 in range(0, K, BLOCK_K):
      float acc_6[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        float acc_7 = 0.0f;
        acc_6[k] = acc_7;
      }
      for (int k0_1 = 0; (k0_1 < mf_K); k0_1 += 512) {
        // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
        int t_22 = (k0_1 / 8);
        // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
        int t_23 = (mf_K / 64);
        // 58: mask = (rows < N)[:, None] & k_ok[None, :]
        // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
        int t_24 = (mf_K / 8);
        unsigned words_1[4];
        int rows_4 = (t_21 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
        int kw_4 = (t_22 + ((int(threadIdx.x % 32u) % 16) * 4));
        bool k_ok_4 = ((kw_4 / 8) < t_23);
        bool mask_2 = ((rows_4 < mf_NKV) & k_ok_4);
        {
          mf_vec<4, unsigned> mf_v{{0u, 0u, 0u, 0u}};
          mf_load_masked(mf_v, ((wk_ptr + (rows_4 * t_24)) + kw_4), mask_2);
          words_1[0] = mf_v.v[0];
          words_1[1] = mf_v.v[1];
          words_1[2] = mf_v.v[2];
          words_1[3] = mf_v.v[3];
        }
        // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
        float q_1[32];
        #pragma unroll
        for (int k = 0; (k < 32); k += 1) {
          unsigned t_25 = (words_1[(k / 8)] >> static_cast<unsigned>(((k % 8) * 4)));
          unsigned t_26 = (t_25 & 15u);
          q_1[k] = static_cast<float>(t_26);
        }
        // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
        int t_27 = (mf_K / 64);
        // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_28[4];
        int groups_3 = ((rows_4 * t_27) + (kw_4 / 8));
        t_28[0] = (mask_2 ? (sk_ptr + groups_3)[0] : __float2half(0.0f));
        t_28[1] = t_28[0];
        t_28[2] = t_28[0];
        t_28[3] = t_28[0];
        float scale_1[4];
        #pragma unroll
        for (int k = 0; (k < 4); k += 1) {
          scale_1[k] = static_cast<float>(t_28[k]);
        }
        // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_29[4];
        t_29[0] = (mask_2 ? (bk_ptr + groups_3)[0] : __float2half(0.0f));
        t_29[1] = t_29[0];
        t_29[2] = t_29[0];
        t_29[3] = t_29[0];
        float bias_1[4];
        #pragma unroll
        for (int k = 0; (k < 4); k += 1) {
          bias_1[k] = static_cast<float>(t_29[k]);
        }
        // 64: return q * scale + bias, kw, k_ok
        float w_1[32];
        float x_1[32];
        #pragma unroll
        for (int k = 0; (k < 32); k += 8) {
          float t_30_0 = (q_1[k] * scale_1[(k / 8)]);
          w_1[k] = (t_30_0 + bias_1[(k / 8)]);
          float t_30_1 = (q_1[(k + 1)] * scale_1[(k / 8)]);
          w_1[(k + 1)] = (t_30_1 + bias_1[(k / 8)]);
          float t_30_2 = (q_1[(k + 2)] * scale_1[(k / 8)]);
          w_1[(k + 2)] = (t_30_2 + bias_1[(k / 8)]);
          float t_30_3 = (q_1[(k + 3)] * scale_1[(k / 8)]);
          w_1[(k + 3)] = (t_30_3 + bias_1[(k / 8)]);
          float t_30_4 = (q_1[(k + 4)] * scale_1[(k / 8)]);
          w_1[(k + 4)] = (t_30_4 + bias_1[(k / 8)]);
          float t_30_5 = (q_1[(k + 5)] * scale_1[(k / 8)]);
          w_1[(k + 5)] = (t_30_5 + bias_1[(k / 8)]);
          float t_30_6 = (q_1[(k + 6)] * scale_1[(k / 8)]);
          w_1[(k + 6)] = (t_30_6 + bias_1[(k / 8)]);
          float t_30_7 = (q_1[(k + 7)] * scale_1[(k / 8)]);
          w_1[(k + 7)] = (t_30_7 + bias_1[(k / 8)]);
          // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
          // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
          int kw_5 = (t_22 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
          int offs_3 = (kw_5 * 8);
          bool k_ok_5 = ((kw_5 / 8) < t_23);
          __half t_31_0;
          __half t_31_1;
          __half t_31_2;
          __half t_31_3;
          __half t_31_4;
          __half t_31_5;
          __half t_31_6;
          __half t_31_7;
          {
            mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
            mf_load_masked(mf_v, (x_ptr + offs_3), k_ok_5);
            t_31_0 = mf_v.v[0];
            t_31_1 = mf_v.v[1];
            t_31_2 = mf_v.v[2];
            t_31_3 = mf_v.v[3];
            t_31_4 = mf_v.v[4];
            t_31_5 = mf_v.v[5];
            t_31_6 = mf_v.v[6];
            t_31_7 = mf_v.v[7];
          }
          x_1[k] = static_cast<float>(t_31_0);
          x_1[(k + 1)] = static_cast<float>(t_31_1);
          x_1[(k + 2)] = static_cast<float>(t_31_2);
          x_1[(k + 3)] = static_cast<float>(t_31_3);
          x_1[(k + 4)] = static_cast<float>(t_31_4);
          x_1[(k + 5)] = static_cast<float>(t_31_5);
          x_1[(k + 6)] = static_cast<float>(t_31_6);
          x_1[(k + 7)] = static_cast<float>(t_31_7);
        }
        // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
        float t_32[32];
        #pragma unroll
        for (int k = 0; (k < 32); k += 1) {
          t_32[k] = (w_1[k] * x_1[(((k / 8) * 8) + (k % 8))]);
        }
        #pragma unroll
        for (int k = 0; (k < 4); k += 1) {
          float acc_8 = t_32[(k * 8)];
          acc_8 = (acc_8 + t_32[((k * 8) + 1)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 2)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 3)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 4)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 5)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 6)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 7)]);
          float acc_9 = (acc_6[k] + acc_8);
          float acc_10 = acc_9;
          acc_6[k] = acc_10;
        }
      }
      // 129: y = tl.sum(acc, axis=1) * inv_rms
      float acc_11[1];
      acc_11[0] = acc_6[0];
      acc_11[0] = (acc_11[0] + acc_6[1]);
      acc_11[0] = (acc_11[0] + acc_6[2]);
      acc_11[0] = (acc_11[0] + acc_6[3]);
      float partner_4 = __shfl_xor_sync(0xffffffffu, acc_11[0], 1);
      acc_11[0] = (acc_11[0] + partner_4);
      float partner_5 = __shfl_xor_sync(0xffffffffu, acc_11[0], 2);
      acc_11[0] = (acc_11[0] + partner_5);
      float partner_6 = __shfl_xor_sync(0xffffffffu, acc_11[0], 4);
      acc_11[0] = (acc_11[0] + partner_6);
      float partner_7 = __shfl_xor_sync(0xffffffffu, acc_11[0], 8);
      acc_11[0] = (acc_11[0] + partner_7);
      float y_1[1];
      y_1[0] = (acc_11[0] * 1.0f);
      // 132: tl.store(out_ptr + rows, y, mask=rows < N)
      __half t_33[1];
      t_33[0] = mf_cast<__half>(y_1[0]);
      int rows_5 = (t_21 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
      if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows_5 < mf_NKV))) {
        *((k_ptr + rows_5)) = t_33[0];
      }
    } else {
      // 257: qmv_rows(x_ptr, norm_ptr, inv_rms, wv_ptr, sv_ptr, bv_ptr, v_ptr, vb_ptr, block - q_blocks - kv_blocks, NKV, K,
      int t_34 = (int(blockIdx.x) - q_blocks);
      int t_35 = (t_34 - kv_blocks);
      // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
      int t_36 = (t_35 * 8);
      // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
      // 126: for k0 in range(0, K, BLOCK_K):
      float acc_12[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        float acc_13 = 0.0f;
        acc_12[k] = acc_13;
      }
      for (int k0_2 = 0; (k0_2 < mf_K); k0_2 += 512) {
        // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
        int t_37 = (k0_2 / 8);
        // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
        int t_38 = (mf_K / 64);
        // 58: mask = (rows < N)[:, None] & k_ok[None, :]
        // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
        int t_39 = (mf_K / 8);
        unsigned words_2[4];
        int rows_7 = (t_36 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
        int kw_7 = (t_37 + ((int(threadIdx.x % 32u) % 16) * 4));
        bool k_ok_7 = ((kw_7 / 8) < t_38);
        bool mask_4 = ((rows_7 < mf_NKV) & k_ok_7);
        {
          mf_vec<4, unsigned> mf_v{{0u, 0u, 0u, 0u}};
          mf_load_masked(mf_v, ((wv_ptr + (rows_7 * t_39)) + kw_7), mask_4);
          words_2[0] = mf_v.v[0];
          words_2[1] = mf_v.v[1];
          words_2[2] = mf_v.v[2];
          words_2[3] = mf_v.v[3];
        }
        // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
        float q_2[32];
        #pragma unroll
        for (int k = 0; (k < 32); k += 1) {
          unsigned t_40 = (words_2[(k / 8)] >> static_cast<unsigned>(((k % 8) * 4)));
          unsigned t_41 = (t_40 & 15u);
          q_2[k] = static_cast<float>(t_41);
        }
        // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
        int t_42 = (mf_K / 64);
        // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_43[4];
        int groups_5 = ((rows_7 * t_42) + (kw_7 / 8));
        t_43[0] = (mask_4 ? (sv_ptr + groups_5)[0] : __float2half(0.0f));
        t_43[1] = t_43[0];
        t_43[2] = t_43[0];
        t_43[3] = t_43[0];
        float scale_2[4];
        #pragma unroll
        for (int k = 0; (k < 4); k += 1) {
          scale_2[k] = static_cast<float>(t_43[k]);
        }
        // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_44[4];
        t_44[0] = (mask_4 ? (bv_ptr + groups_5)[0] : __float2half(0.0f));
        t_44[1] = t_44[0];
        t_44[2] = t_44[0];
        t_44[3] = t_44[0];
        float bias_2[4];
        #pragma unroll
        for (int k = 0; (k < 4); k += 1) {
          bias_2[k] = static_cast<float>(t_44[k]);
        }
        // 64: return q * scale + bias, kw, k_ok
        float w_2[32];
        float x_2[32];
        #pragma unroll
        for (int k = 0; (k < 32); k += 8) {
          float t_45_0 = (q_2[k] * scale_2[(k / 8)]);
          w_2[k] = (t_45_0 + bias_2[(k / 8)]);
          float t_45_1 = (q_2[(k + 1)] * scale_2[(k / 8)]);
          w_2[(k + 1)] = (t_45_1 + bias_2[(k / 8)]);
          float t_45_2 = (q_2[(k + 2)] * scale_2[(k / 8)]);
          w_2[(k + 2)] = (t_45_2 + bias_2[(k / 8)]);
          float t_45_3 = (q_2[(k + 3)] * scale_2[(k / 8)]);
          w_2[(k + 3)] = (t_45_3 + bias_2[(k / 8)]);
          float t_45_4 = (q_2[(k + 4)] * scale_2[(k / 8)]);
          w_2[(k + 4)] = (t_45_4 + bias_2[(k / 8)]);
          float t_45_5 = (q_2[(k + 5)] * scale_2[(k / 8)]);
          w_2[(k + 5)] = (t_45_5 + bias_2[(k / 8)]);
          float t_45_6 = (q_2[(k + 6)] * scale_2[(k / 8)]);
          w_2[(k + 6)] = (t_45_6 + bias_2[(k / 8)]);
          float t_45_7 = (q_2[(k + 7)] * scale_2[(k / 8)]);
          w_2[(k + 7)] = (t_45_7 + bias_2[(k / 8)]);
          // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
          // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
          int kw_8 = (t_37 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
          int offs_5 = (kw_8 * 8);
          bool k_ok_8 = ((kw_8 / 8) < t_38);
          __half t_46_0;
          __half t_46_1;
          __half t_46_2;
          __half t_46_3;
          __half t_46_4;
          __half t_46_5;
          __half t_46_6;
          __half t_46_7;
          {
            mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
            mf_load_masked(mf_v, (x_ptr + offs_5), k_ok_8);
            t_46_0 = mf_v.v[0];
            t_46_1 = mf_v.v[1];
            t_46_2 = mf_v.v[2];
            t_46_3 = mf_v.v[3];
            t_46_4 = mf_v.v[4];
            t_46_5 = mf_v.v[5];
            t_46_6 = mf_v.v[6];
            t_46_7 = mf_v.v[7];
          }
          x_2[k] = static_cast<float>(t_46_0);
          x_2[(k + 1)] = static_cast<float>(t_46_1);
          x_2[(k + 2)] = static_cast<float>(t_46_2);
          x_2[(k + 3)] = static_cast<float>(t_46_3);
          x_2[(k + 4)] = static_cast<float>(t_46_4);
          x_2[(k + 5)] = static_cast<float>(t_46_5);
          x_2[(k + 6)] = static_cast<float>(t_46_6);
          x_2[(k + 7)] = static_cast<float>(t_46_7);
        }
        // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
        float t_47[32];
        #pragma unroll
        for (int k = 0; (k < 32); k += 1) {
          t_47[k] = (w_2[k] * x_2[(((k / 8) * 8) + (k % 8))]);
        }
        #pragma unroll
        for (int k = 0; (k < 4); k += 1) {
          float acc_14 = t_47[(k * 8)];
          acc_14 = (acc_14 + t_47[((k * 8) + 1)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 2)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 3)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 4)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 5)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 6)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 7)]);
          float acc_15 = (acc_12[k] + acc_14);
          float acc_16 = acc_15;
          acc_12[k] = acc_16;
        }
      }
      // 129: y = tl.sum(acc, axis=1) * inv_rms
      float acc_17[1];
      acc_17[0] = acc_12[0];
      acc_17[0] = (acc_17[0] + acc_12[1]);
      acc_17[0] = (acc_17[0] + acc_12[2]);
      acc_17[0] = (acc_17[0] + acc_12[3]);
      float partner_8 = __shfl_xor_sync(0xffffffffu, acc_17[0], 1);
      acc_17[0] = (acc_17[0] + partner_8);
      float partner_9 = __shfl_xor_sync(0xffffffffu, acc_17[0], 2);
      acc_17[0] = (acc_17[0] + partner_9);
      float partner_10 = __shfl_xor_sync(0xffffffffu, acc_17[0], 4);
      acc_17[0] = (acc_17[0] + partner_10);
      float partner_11 = __shfl_xor_sync(0xffffffffu, acc_17[0], 8);
      acc_17[0] = (acc_17[0] + partner_11);
      float y_2[1];
      y_2[0] = (acc_17[0] * 1.0f);
      // 132: tl.store(out_ptr + rows, y, mask=rows < N)
      __half t_48[1];
      t_48[0] = mf_cast<__half>(y_2[0]);
      int rows_8 = (t_36 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
      if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows_8 < mf_NKV))) {
        *((v_ptr + rows_8)) = t_48[0];
      }
    }
  }
} else {
  // 236: block = tl.program_id(0)
  // 237: q_blocks = tl.cdiv(NQ, BLOCK_N)
  int t = (mf_NQ + 8);
  int t_1 = (t - 1);
  int q_blocks = (t_1 / 8);
  // 238: kv_blocks = tl.cdiv(NKV, BLOCK_N)
  int t_2 = (mf_NKV + 8);
  int t_3 = (t_2 - 1);
  int kv_blocks = (t_3 / 8);
  // 242: if block < q_blocks:
  bool t_4 = (int(blockIdx.x) < q_blocks);
  if (t_4) {
    // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
    int t_5 = (int(blockIdx.x) * 8);
    // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    // 126: for k0 in range(0, K, BLOCK_K):
    float acc[4];
    #pragma unroll 1
    for (int k = 0; (k < 4); k += 1) {
      float acc_1 = 0.0f;
      acc[k] = acc_1;
    }
    for (int k0 = 0; (k0 < mf_K); k0 += 512) {
      // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
      int t_6 = (k0 / 8);
      // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
      int t_7 = (mf_K / 64);
      // 58: mask = (rows < N)[:, None] & k_ok[None, :]
      // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
      int t_8 = (mf_K / 8);
      unsigned words[4];
      int rows_1 = (t_5 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
      int kw_1 = (t_6 + ((int(threadIdx.x % 32u) % 16) * 4));
      bool k_ok_1 = ((kw_1 / 8) < t_7);
      bool mask = ((rows_1 < mf_NQ) & k_ok_1);
      if (mask) {
        words[0] = ((wq_ptr + (rows_1 * t_8)) + kw_1)[0];
        words[1] = ((wq_ptr + (rows_1 * t_8)) + kw_1)[1];
        words[2] = ((wq_ptr + (rows_1 * t_8)) + kw_1)[2];
        words[3] = ((wq_ptr + (rows_1 * t_8)) + kw_1)[3];
      } else {
        words[0] = 0u;
        words[1] = 0u;
        words[2] = 0u;
        words[3] = 0u;
      }
      // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
      float q[32];
      #pragma unroll 1
      for (int k = 0; (k < 32); k += 1) {
        unsigned t_9 = (words[(k / 8)] >> static_cast<unsigned>(((k % 8) * 4)));
        unsigned t_10 = (t_9 & 15u);
        q[k] = static_cast<float>(t_10);
      }
      // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
      int t_11 = (mf_K / 64);
      // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      __half t_12[4];
      int groups_1 = ((rows_1 * t_11) + (kw_1 / 8));
      t_12[0] = (mask ? (sq_ptr + groups_1)[0] : __float2half(0.0f));
      t_12[1] = t_12[0];
      t_12[2] = t_12[0];
      t_12[3] = t_12[0];
      float scale[4];
      #pragma unroll 1
      for (int k = 0; (k < 4); k += 1) {
        scale[k] = static_cast<float>(t_12[k]);
      }
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      __half t_13[4];
      t_13[0] = (mask ? (bq_ptr + groups_1)[0] : __float2half(0.0f));
      t_13[1] = t_13[0];
      t_13[2] = t_13[0];
      t_13[3] = t_13[0];
      float bias[4];
      #pragma unroll 1
      for (int k = 0; (k < 4); k += 1) {
        bias[k] = static_cast<float>(t_13[k]);
      }
      // 64: return q * scale + bias, kw, k_ok
      float w[32];
      float x[32];
      #pragma unroll 1
      for (int k = 0; (k < 32); k += 8) {
        float t_14_0 = (q[k] * scale[(k / 8)]);
        w[k] = (t_14_0 + bias[(k / 8)]);
        float t_14_1 = (q[(k + 1)] * scale[(k / 8)]);
        w[(k + 1)] = (t_14_1 + bias[(k / 8)]);
        float t_14_2 = (q[(k + 2)] * scale[(k / 8)]);
        w[(k + 2)] = (t_14_2 + bias[(k / 8)]);
        float t_14_3 = (q[(k + 3)] * scale[(k / 8)]);
        w[(k + 3)] = (t_14_3 + bias[(k / 8)]);
        float t_14_4 = (q[(k + 4)] * scale[(k / 8)]);
        w[(k + 4)] = (t_14_4 + bias[(k / 8)]);
        float t_14_5 = (q[(k + 5)] * scale[(k / 8)]);
        w[(k + 5)] = (t_14_5 + bias[(k / 8)]);
        float t_14_6 = (q[(k + 6)] * scale[(k / 8)]);
        w[(k + 6)] = (t_14_6 + bias[(k / 8)]);
        float t_14_7 = (q[(k + 7)] * scale[(k / 8)]);
        w[(k + 7)] = (t_14_7 + bias[(k / 8)]);
        // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
        // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
        int kw_2 = (t_6 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
        int offs_1 = (kw_2 * 8);
        bool k_ok_2 = ((kw_2 / 8) < t_7);
        __half t_15_0;
        __half t_15_1;
        __half t_15_2;
        __half t_15_3;
        __half t_15_4;
        __half t_15_5;
        __half t_15_6;
        __half t_15_7;
        if (k_ok_2) {
          t_15_0 = (x_ptr + offs_1)[0];
          t_15_1 = (x_ptr + offs_1)[1];
          t_15_2 = (x_ptr + offs_1)[2];
          t_15_3 = (x_ptr + offs_1)[3];
          t_15_4 = (x_ptr + offs_1)[4];
          t_15_5 = (x_ptr + offs_1)[5];
          t_15_6 = (x_ptr + offs_1)[6];
          t_15_7 = (x_ptr + offs_1)[7];
        } else {
          t_15_0 = __float2half(0.0f);
          t_15_1 = __float2half(0.0f);
          t_15_2 = __float2half(0.0f);
          t_15_3 = __float2half(0.0f);
          t_15_4 = __float2half(0.0f);
          t_15_5 = __float2half(0.0f);
          t_15_6 = __float2half(0.0f);
          t_15_7 = __float2half(0.0f);
        }
        x[k] = static_cast<float>(t_15_0);
        x[(k + 1)] = static_cast<float>(t_15_1);
        x[(k + 2)] = static_cast<float>(t_15_2);
        x[(k + 3)] = static_cast<float>(t_15_3);
        x[(k + 4)] = static_cast<float>(t_15_4);
        x[(k + 5)] = static_cast<float>(t_15_5);
        x[(k + 6)] = static_cast<float>(t_15_6);
        x[(k + 7)] = static_cast<float>(t_15_7);
      }
      // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
      float t_16[32];
      #pragma unroll 1
      for (int k = 0; (k < 32); k += 1) {
        t_16[k] = (w[k] * x[(((k / 8) * 8) + (k % 8))]);
      }
      #pragma unroll 1
      for (int k = 0; (k < 4); k += 1) {
        float acc_2 = t_16[(k * 8)];
        acc_2 = (acc_2 + t_16[((k * 8) + 1)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 2)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 3)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 4)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 5)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 6)]);
        acc_2 = (acc_2 + t_16[((k * 8) + 7)]);
        float acc_3 = (acc[k] + acc_2);
        float acc_4 = acc_3;
        acc[k] = acc_4;
      }
    }
    // 129: y = tl.sum(acc, axis=1) * inv_rms
    float acc_5[1];
    acc_5[0] = acc[0];
    acc_5[0] = (acc_5[0] + acc[1]);
    acc_5[0] = (acc_5[0] + acc[2]);
    acc_5[0] = (acc_5[0] + acc[3]);
    float partner = __shfl_xor_sync(0xffffffffu, acc_5[0], 1);
    acc_5[0] = (acc_5[0] + partner);
    float partner_1 = __shfl_xor_sync(0xffffffffu, acc_5[0], 2);
    acc_5[0] = (acc_5[0] + partner_1);
    float partner_2 = __shfl_xor_sync(0xffffffffu, acc_5[0], 4);
    acc_5[0] = (acc_5[0] + partner_2);
    float partner_3 = __shfl_xor_sync(0xffffffffu, acc_5[0], 8);
    acc_5[0] = (acc_5[0] + partner_3);
    float y[1];
    y[0] = (acc_5[0] * 1.0f);
    // 132: tl.store(out_ptr + rows, y, mask=rows < N)
    __half t_17[1];
    t_17[0] = mf_cast<__half>(y[0]);
    int rows_2 = (t_5 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
    if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows_2 < mf_NQ))) {
      *((q_ptr + rows_2)) = t_17[0];
    }
  } else {
    // 249: elif block < q_blocks + kv_blocks:
    int t_18 = (q_blocks + kv_blocks);
    bool t_19 = (int(blockIdx.x) < t_18);
    if (t_19) {
      // 254: qmv_rows(x_ptr, norm_ptr, inv_rms, wk_ptr, sk_ptr, bk_ptr, k_ptr, kb_ptr, block - q_blocks, NKV, K, GROUP,
      int t_20 = (int(blockIdx.x) - q_blocks);
      // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
      int t_21 = (t_20 * 8);
      // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
      // 126: for k0 in range(0, K, BLOCK_K):
      float acc_6[4];
      #pragma unroll 1
      for (int k = 0; (k < 4); k += 1) {
        float acc_7 = 0.0f;
        acc_6[k] = acc_7;
      }
      for (int k0_1 = 0; (k0_1 < mf_K); k0_1 += 512) {
        // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
        int t_22 = (k0_1 / 8);
        // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
        int t_23 = (mf_K / 64);
        // 58: mask = (rows < N)[:, None] & k_ok[None, :]
        // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
        int t_24 = (mf_K / 8);
        unsigned words_1[4];
        int rows_4 = (t_21 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
        int kw_4 = (t_22 + ((int(threadIdx.x % 32u) % 16) * 4));
        bool k_ok_4 = ((kw_4 / 8) < t_23);
        bool mask_2 = ((rows_4 < mf_NKV) & k_ok_4);
        if (mask_2) {
          words_1[0] = ((wk_ptr + (rows_4 * t_24)) + kw_4)[0];
          words_1[1] = ((wk_ptr + (rows_4 * t_24)) + kw_4)[1];
          words_1[2] = ((wk_ptr + (rows_4 * t_24)) + kw_4)[2];
          words_1[3] = ((wk_ptr + (rows_4 * t_24)) + kw_4)[3];
        } else {
          words_1[0] = 0u;
          words_1[1] = 0u;
          words_1[2] = 0u;
          words_1[3] = 0u;
        }
        // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
        float q_1[32];
        #pragma unroll 1
        for (int k = 0; (k < 32); k += 1) {
          unsigned t_25 = (words_1[(k / 8)] >> static_cast<unsigned>(((k % 8) * 4)));
          unsigned t_26 = (t_25 & 15u);
          q_1[k] = static_cast<float>(t_26);
        }
        // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
        int t_27 = (mf_K / 64);
        // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_28[4];
        int groups_3 = ((rows_4 * t_27) + (kw_4 / 8));
        t_28[0] = (mask_2 ? (sk_ptr + groups_3)[0] : __float2half(0.0f));
        t_28[1] = t_28[0];
        t_28[2] = t_28[0];
        t_28[3] = t_28[0];
        float scale_1[4];
        #pragma unroll 1
        for (int k = 0; (k < 4); k += 1) {
          scale_1[k] = static_cast<float>(t_28[k]);
        }
        // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_29[4];
        t_29[0] = (mask_2 ? (bk_ptr + groups_3)[0] : __float2half(0.0f));
        t_29[1] = t_29[0];
        t_29[2] = t_29[0];
        t_29[3] = t_29[0];
        float bias_1[4];
        #pragma unroll 1
        for (int k = 0; (k < 4); k += 1) {
          bias_1[k] = static_cast<float>(t_29[k]);
        }
        // 64: return q * scale + bias, kw, k_ok
        float w_1[32];
        float x_1[32];
        #pragma unroll 1
        for (int k = 0; (k < 32); k += 8) {
          float t_30_0 = (q_1[k] * scale_1[(k / 8)]);
          w_1[k] = (t_30_0 + bias_1[(k / 8)]);
          float t_30_1 = (q_1[(k + 1)] * scale_1[(k / 8)]);
          w_1[(k + 1)] = (t_30_1 + bias_1[(k / 8)]);
          float t_30_2 = (q_1[(k + 2)] * scale_1[(k / 8)]);
          w_1[(k + 2)] = (t_30_2 + bias_1[(k / 8)]);
          float t_30_3 = (q_1[(k + 3)] * scale_1[(k / 8)]);
          w_1[(k + 3)] = (t_30_3 + bias_1[(k / 8)]);
          float t_30_4 = (q_1[(k + 4)] * scale_1[(k / 8)]);
          w_1[(k + 4)] = (t_30_4 + bias_1[(k / 8)]);
          float t_30_5 = (q_1[(k + 5)] * scale_1[(k / 8)]);
          w_1[(k + 5)] = (t_30_5 + bias_1[(k / 8)]);
          float t_30_6 = (q_1[(k + 6)] * scale_1[(k / 8)]);
          w_1[(k + 6)] = (t_30_6 + bias_1[(k / 8)]);
          float t_30_7 = (q_1[(k + 7)] * scale_1[(k / 8)]);
          w_1[(k + 7)] = (t_30_7 + bias_1[(k / 8)]);
          // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
          // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
          int kw_5 = (t_22 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
          int offs_3 = (kw_5 * 8);
          bool k_ok_5 = ((kw_5 / 8) < t_23);
          __half t_31_0;
          __half t_31_1;
          __half t_31_2;
          __half t_31_3;
          __half t_31_4;
          __half t_31_5;
          __half t_31_6;
          __half t_31_7;
          if (k_ok_5) {
            t_31_0 = (x_ptr + offs_3)[0];
            t_31_1 = (x_ptr + offs_3)[1];
            t_31_2 = (x_ptr + offs_3)[2];
            t_31_3 = (x_ptr + offs_3)[3];
            t_31_4 = (x_ptr + offs_3)[4];
            t_31_5 = (x_ptr + offs_3)[5];
            t_31_6 = (x_ptr + offs_3)[6];
            t_31_7 = (x_ptr + offs_3)[7];
          } else {
            t_31_0 = __float2half(0.0f);
            t_31_1 = __float2half(0.0f);
            t_31_2 = __float2half(0.0f);
            t_31_3 = __float2half(0.0f);
            t_31_4 = __float2half(0.0f);
            t_31_5 = __float2half(0.0f);
            t_31_6 = __float2half(0.0f);
            t_31_7 = __float2half(0.0f);
          }
          x_1[k] = static_cast<float>(t_31_0);
          x_1[(k + 1)] = static_cast<float>(t_31_1);
          x_1[(k + 2)] = static_cast<float>(t_31_2);
          x_1[(k + 3)] = static_cast<float>(t_31_3);
          x_1[(k + 4)] = static_cast<float>(t_31_4);
          x_1[(k + 5)] = static_cast<float>(t_31_5);
          x_1[(k + 6)] = static_cast<float>(t_31_6);
          x_1[(k + 7)] = static_cast<float>(t_31_7);
        }
        // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
        float t_32[32];
        #pragma unroll 1
        for (int k = 0; (k < 32); k += 1) {
          t_32[k] = (w_1[k] * x_1[(((k / 8) * 8) + (k % 8))]);
        }
        #pragma unroll 1
        for (int k = 0; (k < 4); k += 1) {
          float acc_8 = t_32[(k * 8)];
          acc_8 = (acc_8 + t_32[((k * 8) + 1)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 2)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 3)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 4)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 5)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 6)]);
          acc_8 = (acc_8 + t_32[((k * 8) + 7)]);
          float acc_9 = (acc_6[k] + acc_8);
          float acc_10 = acc_9;
          acc_6[k] = acc_10;
        }
      }
      // 129: y = tl.sum(acc, axis=1) * inv_rms
      float acc_11[1];
      acc_11[0] = acc_6[0];
      acc_11[0] = (acc_11[0] + acc_6[1]);
      acc_11[0] = (acc_11[0] + acc_6[2]);
      acc_11[0] = (acc_11[0] + acc_6[3]);
      float partner_4 = __shfl_xor_sync(0xffffffffu, acc_11[0], 1);
      acc_11[0] = (acc_11[0] + partner_4);
      float partner_5 = __shfl_xor_sync(0xffffffffu, acc_11[0], 2);
      acc_11[0] = (acc_11[0] + partner_5);
      float partner_6 = __shfl_xor_sync(0xffffffffu, acc_11[0], 4);
      acc_11[0] = (acc_11[0] + partner_6);
      float partner_7 = __shfl_xor_sync(0xffffffffu, acc_11[0], 8);
      acc_11[0] = (acc_11[0] + partner_7);
      float y_1[1];
      y_1[0] = (acc_11[0] * 1.0f);
      // 132: tl.store(out_ptr + rows, y, mask=rows < N)
      __half t_33[1];
      t_33[0] = mf_cast<__half>(y_1[0]);
      int rows_5 = (t_21 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
      if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows_5 < mf_NKV))) {
        *((k_ptr + rows_5)) = t_33[0];
      }
    } else {
      // 257: qmv_rows(x_ptr, norm_ptr, inv_rms, wv_ptr, sv_ptr, bv_ptr, v_ptr, vb_ptr, block - q_blocks - kv_blocks, NKV, K,
      int t_34 = (int(blockIdx.x) - q_blocks);
      int t_35 = (t_34 - kv_blocks);
      // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
      int t_36 = (t_35 * 8);
      // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
      // 126: for k0 in range(0, K, BLOCK_K):
      float acc_12[4];
      #pragma unroll 1
      for (int k = 0; (k < 4); k += 1) {
        float acc_13 = 0.0f;
        acc_12[k] = acc_13;
      }
      for (int k0_2 = 0; (k0_2 < mf_K); k0_2 += 512) {
        // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
        int t_37 = (k0_2 / 8);
        // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
        int t_38 = (mf_K / 64);
        // 58: mask = (rows < N)[:, None] & k_ok[None, :]
        // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
        int t_39 = (mf_K / 8);
        unsigned words_2[4];
        int rows_7 = (t_36 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
        int kw_7 = (t_37 + ((int(threadIdx.x % 32u) % 16) * 4));
        bool k_ok_7 = ((kw_7 / 8) < t_38);
        bool mask_4 = ((rows_7 < mf_NKV) & k_ok_7);
        if (mask_4) {
          words_2[0] = ((wv_ptr + (rows_7 * t_39)) + kw_7)[0];
          words_2[1] = ((wv_ptr + (rows_7 * t_39)) + kw_7)[1];
          words_2[2] = ((wv_ptr + (rows_7 * t_39)) + kw_7)[2];
          words_2[3] = ((wv_ptr + (rows_7 * t_39)) + kw_7)[3];
        } else {
          words_2[0] = 0u;
          words_2[1] = 0u;
          words_2[2] = 0u;
          words_2[3] = 0u;
        }
        // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
        float q_2[32];
        #pragma unroll 1
        for (int k = 0; (k < 32); k += 1) {
          unsigned t_40 = (words_2[(k / 8)] >> static_cast<unsigned>(((k % 8) * 4)));
          unsigned t_41 = (t_40 & 15u);
          q_2[k] = static_cast<float>(t_41);
        }
        // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
        int t_42 = (mf_K / 64);
        // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_43[4];
        int groups_5 = ((rows_7 * t_42) + (kw_7 / 8));
        t_43[0] = (mask_4 ? (sv_ptr + groups_5)[0] : __float2half(0.0f));
        t_43[1] = t_43[0];
        t_43[2] = t_43[0];
        t_43[3] = t_43[0];
        float scale_2[4];
        #pragma unroll 1
        for (int k = 0; (k < 4); k += 1) {
          scale_2[k] = static_cast<float>(t_43[k]);
        }
        // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
        __half t_44[4];
        t_44[0] = (mask_4 ? (bv_ptr + groups_5)[0] : __float2half(0.0f));
        t_44[1] = t_44[0];
        t_44[2] = t_44[0];
        t_44[3] = t_44[0];
        float bias_2[4];
        #pragma unroll 1
        for (int k = 0; (k < 4); k += 1) {
          bias_2[k] = static_cast<float>(t_44[k]);
        }
        // 64: return q * scale + bias, kw, k_ok
        float w_2[32];
        float x_2[32];
        #pragma unroll 1
        for (int k = 0; (k < 32); k += 8) {
          float t_45_0 = (q_2[k] * scale_2[(k / 8)]);
          w_2[k] = (t_45_0 + bias_2[(k / 8)]);
          float t_45_1 = (q_2[(k + 1)] * scale_2[(k / 8)]);
          w_2[(k + 1)] = (t_45_1 + bias_2[(k / 8)]);
          float t_45_2 = (q_2[(k + 2)] * scale_2[(k / 8)]);
          w_2[(k + 2)] = (t_45_2 + bias_2[(k / 8)]);
          float t_45_3 = (q_2[(k + 3)] * scale_2[(k / 8)]);
          w_2[(k + 3)] = (t_45_3 + bias_2[(k / 8)]);
          float t_45_4 = (q_2[(k + 4)] * scale_2[(k / 8)]);
          w_2[(k + 4)] = (t_45_4 + bias_2[(k / 8)]);
          float t_45_5 = (q_2[(k + 5)] * scale_2[(k / 8)]);
          w_2[(k + 5)] = (t_45_5 + bias_2[(k / 8)]);
          float t_45_6 = (q_2[(k + 6)] * scale_2[(k / 8)]);
          w_2[(k + 6)] = (t_45_6 + bias_2[(k / 8)]);
          float t_45_7 = (q_2[(k + 7)] * scale_2[(k / 8)]);
          w_2[(k + 7)] = (t_45_7 + bias_2[(k / 8)]);
          // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
          // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
          int kw_8 = (t_37 + (((int(threadIdx.x % 32u) % 16) * 4) + (k / 8)));
          int offs_5 = (kw_8 * 8);
          bool k_ok_8 = ((kw_8 / 8) < t_38);
          __half t_46_0;
          __half t_46_1;
          __half t_46_2;
          __half t_46_3;
          __half t_46_4;
          __half t_46_5;
          __half t_46_6;
          __half t_46_7;
          if (k_ok_8) {
            t_46_0 = (x_ptr + offs_5)[0];
            t_46_1 = (x_ptr + offs_5)[1];
            t_46_2 = (x_ptr + offs_5)[2];
            t_46_3 = (x_ptr + offs_5)[3];
            t_46_4 = (x_ptr + offs_5)[4];
            t_46_5 = (x_ptr + offs_5)[5];
            t_46_6 = (x_ptr + offs_5)[6];
            t_46_7 = (x_ptr + offs_5)[7];
          } else {
            t_46_0 = __float2half(0.0f);
            t_46_1 = __float2half(0.0f);
            t_46_2 = __float2half(0.0f);
            t_46_3 = __float2half(0.0f);
            t_46_4 = __float2half(0.0f);
            t_46_5 = __float2half(0.0f);
            t_46_6 = __float2half(0.0f);
            t_46_7 = __float2half(0.0f);
          }
          x_2[k] = static_cast<float>(t_46_0);
          x_2[(k + 1)] = static_cast<float>(t_46_1);
          x_2[(k + 2)] = static_cast<float>(t_46_2);
          x_2[(k + 3)] = static_cast<float>(t_46_3);
          x_2[(k + 4)] = static_cast<float>(t_46_4);
          x_2[(k + 5)] = static_cast<float>(t_46_5);
          x_2[(k + 6)] = static_cast<float>(t_46_6);
          x_2[(k + 7)] = static_cast<float>(t_46_7);
        }
        // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
        float t_47[32];
        #pragma unroll 1
        for (int k = 0; (k < 32); k += 1) {
          t_47[k] = (w_2[k] * x_2[(((k / 8) * 8) + (k % 8))]);
        }
        #pragma unroll 1
        for (int k = 0; (k < 4); k += 1) {
          float acc_14 = t_47[(k * 8)];
          acc_14 = (acc_14 + t_47[((k * 8) + 1)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 2)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 3)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 4)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 5)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 6)]);
          acc_14 = (acc_14 + t_47[((k * 8) + 7)]);
          float acc_15 = (acc_12[k] + acc_14);
          float acc_16 = acc_15;
          acc_12[k] = acc_16;
        }
      }
      // 129: y = tl.sum(acc, axis=1) * inv_rms
      float acc_17[1];
      acc_17[0] = acc_12[0];
      acc_17[0] = (acc_17[0] + acc_12[1]);
      acc_17[0] = (acc_17[0] + acc_12[2]);
      acc_17[0] = (acc_17[0] + acc_12[3]);
      float partner_8 = __shfl_xor_sync(0xffffffffu, acc_17[0], 1);
      acc_17[0] = (acc_17[0] + partner_8);
      float partner_9 = __shfl_xor_sync(0xffffffffu, acc_17[0], 2);
      acc_17[0] = (acc_17[0] + partner_9);
      float partner_10 = __shfl_xor_sync(0xffffffffu, acc_17[0], 4);
      acc_17[0] = (acc_17[0] + partner_10);
      float partner_11 = __shfl_xor_sync(0xffffffffu, acc_17[0], 8);
      acc_17[0] = (acc_17[0] + partner_11);
      float y_2[1];
      y_2[0] = (acc_17[0] * 1.0f);
      // 132: tl.store(out_ptr + rows, y, mask=rows < N)
      __half t_48[1];
      t_48[0] = mf_cast<__half>(y_2[0]);
      int rows_8 = (t_36 + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16)));
      if ((((int(threadIdx.x % 32u) % 16) == 0) && (rows_8 < mf_NKV))) {
        *((v_ptr + rows_8)) = t_48[0];
      }
    }
  }
}
