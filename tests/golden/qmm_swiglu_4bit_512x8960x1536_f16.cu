
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

// Tensor cores: D = A @ B + C on a 16x8x16 tile, fp16 or bf16 inputs, fp32 accumulator (PTX mma.sync).
template <typename T, int N> struct mf_frag { T e[N]; };
__device__ __forceinline__ void mf_mma_m16n8k16(mf_frag<float, 4>& c, const mf_frag<__half, 8>& a,
                                                const mf_frag<__half, 4>& b) {
  const unsigned* pa = reinterpret_cast<const unsigned*>(a.e);
  const unsigned* pb = reinterpret_cast<const unsigned*>(b.e);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(c.e[0]), "+f"(c.e[1]), "+f"(c.e[2]), "+f"(c.e[3])
               : "r"(pa[0]), "r"(pa[1]), "r"(pa[2]), "r"(pa[3]), "r"(pb[0]), "r"(pb[1]));
}
__device__ __forceinline__ void mf_mma_m16n8k16(mf_frag<float, 4>& c, const mf_frag<__nv_bfloat16, 8>& a,
                                                const mf_frag<__nv_bfloat16, 4>& b) {
  const unsigned* pa = reinterpret_cast<const unsigned*>(a.e);
  const unsigned* pb = reinterpret_cast<const unsigned*>(b.e);
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(c.e[0]), "+f"(c.e[1]), "+f"(c.e[2]), "+f"(c.e[3])
               : "r"(pa[0]), "r"(pa[1]), "r"(pa[2]), "r"(pa[3]), "r"(pb[0]), "r"(pb[1]));
}

// A fragment's 8x8 matrices from shared memory in one instruction; each lane passes one 16-byte row,
// `offset` elements from `base` (the same base for a K step's loads: converted once, offset folded).
template <int N, bool Trans, typename F, typename T> __device__ __forceinline__ void mf_ldmatrix(F& frag, const T* base, int offset) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(base)) + offset * unsigned(sizeof(T));
  unsigned* r = reinterpret_cast<unsigned*>(frag.e);
  if constexpr (N == 4 && !Trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
  } else if constexpr (N == 4) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
  } else if constexpr (!Trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(address));
  }
}

// Two neighbouring 2-matrix fragments in one .x4: matrices 0, 1 into `lo`, 2, 3 into `hi`.
template <bool Trans, typename F, typename T> __device__ __forceinline__ void mf_ldmatrix_pair(F& lo, F& hi, const T* base, int offset) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(base)) + offset * unsigned(sizeof(T));
  unsigned* l = reinterpret_cast<unsigned*>(lo.e);
  unsigned* h = reinterpret_cast<unsigned*>(hi.e);
  if constexpr (Trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(l[0]), "=r"(l[1]), "=r"(h[0]), "=r"(h[1]) : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(l[0]), "=r"(l[1]), "=r"(h[0]), "=r"(h[1]) : "r"(address));
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
const auto mf_M = M[0];
const auto mf_N = N[0];
const auto mf_K = K[0];
__half* t_12_smem = reinterpret_cast<__half*>(mf_shared + 0);
__half* a_1_smem = reinterpret_cast<__half*>(mf_shared + 2560);
__half* t_23_smem = reinterpret_cast<__half*>(mf_shared + 5120);
__half* t_28_smem = reinterpret_cast<__half*>(mf_shared + 0);
if ((mf_is_aligned(out_ptr, 16) && mf_is_aligned(x_ptr, 16))) {
  // 117: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
  int t = (int(blockIdx.x) * 32);
  int t_1 = (int(blockIdx.y) * 32);
  // 578: gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 579: up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 580: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> gate[2];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float gate_1 = 0.0f;
    gate[(k / 4)].e[(k % 4)] = gate_1;
  }
  mf_frag<float, 4> up[2];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float up_1 = 0.0f;
    up[(k / 4)].e[(k % 4)] = up_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 581: rk = k0 + tl.arange(0, BLOCK_K)
    // 123: return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
    __half a[8];
    int rm_1 = (t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)));
    int rk_1 = (k0 + ((int(threadIdx.x % 32u) % 4) * 8));
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, ((x_ptr + (rm_1 * mf_K)) + rk_1), (rm_1 < mf_M));
      a[0] = mf_v.v[0];
      a[1] = mf_v.v[1];
      a[2] = mf_v.v[2];
      a[3] = mf_v.v[3];
      a[4] = mf_v.v[4];
      a[5] = mf_v.v[5];
      a[6] = mf_v.v[6];
      a[7] = mf_v.v[7];
    }
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_2 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_3 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_4 = (mf_K / 8);
    unsigned words[1];
    int rn_1 = (t_1 + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)));
    int kw_1 = (t_2 + (int(threadIdx.x % 32u) % 4));
    bool k_ok_1 = ((kw_1 / 8) < t_3);
    bool mask = ((rn_1 < mf_N) & k_ok_1);
    words[0] = (mask ? ((wg_ptr + (rn_1 * t_4)) + kw_1)[0] : 0u);
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      unsigned t_5 = (words[0] >> static_cast<unsigned>((k * 4)));
      unsigned t_6 = (t_5 & 15u);
      q[k] = static_cast<float>(t_6);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_7 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_8[1];
    int groups_1 = ((rn_1 * t_7) + (kw_1 / 8));
    t_8[0] = (mask ? (sg_ptr + groups_1)[0] : __float2half(0.0f));
    float scale[1];
    scale[0] = static_cast<float>(t_8[0]);
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_9[1];
    t_9[0] = (mask ? (bg_ptr + groups_1)[0] : __float2half(0.0f));
    float bias[1];
    bias[0] = static_cast<float>(t_9[0]);
    // 64: return q * scale + bias, kw, k_ok
    __half t_11[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float t_10 = (q[k] * scale[0]);
      float w = (t_10 + bias[0]);
      // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
      t_11[k] = mf_cast<__half>(w);
    }
    __syncthreads();
    *reinterpret_cast<mf_vec<8, __half>*>((t_12_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{t_11[0], t_11[1], t_11[2], t_11[3], t_11[4], t_11[5], t_11[6], t_11[7]}};
    // 583: gate = tl.dot(a, weights_t(a, wg_ptr, sg_ptr, bg_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), gate)
    *reinterpret_cast<mf_vec<8, __half>*>((a_1_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]}};
    __syncthreads();
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    int a_lane = (((warp_row + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8));
    int b_lane = ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (((warp_col + (((int(threadIdx.x % 32u) / 8) / 2) * 16)) + (int(threadIdx.x % 32u) % 8)) * 40));
    #pragma unroll
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[1];
      mf_frag<__half, 4> frag_b[2];
      #pragma unroll
      for (int i = 0; (i < 1); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_1_smem + a_lane), (((i * 32) * 40) + kk));
      }
      #pragma unroll
      for (int j = 0; (j < 2); j += 2) {
        mf_ldmatrix_pair<false>(frag_b[j], frag_b[(j + 1)], (t_12_smem + b_lane), (kk + ((j * 16) * 40)));
      }
      #pragma unroll
      for (int i = 0; (i < 1); i += 1) {
        #pragma unroll
        for (int j = 0; (j < 2); j += 1) {
          mf_mma_m16n8k16(gate[((i * 2) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_13 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_14 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_15 = (mf_K / 8);
    unsigned words_1[1];
    int kw_3 = (t_13 + (int(threadIdx.x % 32u) % 4));
    bool k_ok_3 = ((kw_3 / 8) < t_14);
    bool mask_2 = ((rn_1 < mf_N) & k_ok_3);
    words_1[0] = (mask_2 ? ((wu_ptr + (rn_1 * t_15)) + kw_3)[0] : 0u);
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q_1[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      unsigned t_16 = (words_1[0] >> static_cast<unsigned>((k * 4)));
      unsigned t_17 = (t_16 & 15u);
      q_1[k] = static_cast<float>(t_17);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_18 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_19[1];
    int groups_3 = ((rn_1 * t_18) + (kw_3 / 8));
    t_19[0] = (mask_2 ? (su_ptr + groups_3)[0] : __float2half(0.0f));
    float scale_1[1];
    scale_1[0] = static_cast<float>(t_19[0]);
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_20[1];
    t_20[0] = (mask_2 ? (bu_ptr + groups_3)[0] : __float2half(0.0f));
    float bias_1[1];
    bias_1[0] = static_cast<float>(t_20[0]);
    // 64: return q * scale + bias, kw, k_ok
    __half t_22[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float t_21 = (q_1[k] * scale_1[0]);
      float w_1 = (t_21 + bias_1[0]);
      // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
      t_22[k] = mf_cast<__half>(w_1);
    }
    __syncthreads();
    *reinterpret_cast<mf_vec<8, __half>*>((t_23_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{t_22[0], t_22[1], t_22[2], t_22[3], t_22[4], t_22[5], t_22[6], t_22[7]}};
    __syncthreads();
    // 584: up = tl.dot(a, weights_t(a, wu_ptr, su_ptr, bu_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), up)
    int warp_row_1 = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col_1 = ((int(threadIdx.x / 32u) % 2) * 8);
    int a_lane_1 = (((warp_row_1 + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8));
    int b_lane_1 = ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (((warp_col_1 + (((int(threadIdx.x % 32u) / 8) / 2) * 16)) + (int(threadIdx.x % 32u) % 8)) * 40));
    #pragma unroll
    for (int kk_1 = 0; (kk_1 < 32); kk_1 += 16) {
      mf_frag<__half, 8> frag_a_1[1];
      mf_frag<__half, 4> frag_b_1[2];
      #pragma unroll
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        mf_ldmatrix<4, false>(frag_a_1[i_1], (a_1_smem + a_lane_1), (((i_1 * 32) * 40) + kk_1));
      }
      #pragma unroll
      for (int j_1 = 0; (j_1 < 2); j_1 += 2) {
        mf_ldmatrix_pair<false>(frag_b_1[j_1], frag_b_1[(j_1 + 1)], (t_23_smem + b_lane_1), (kk_1 + ((j_1 * 16) * 40)));
      }
      #pragma unroll
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        #pragma unroll
        for (int j_1 = 0; (j_1 < 2); j_1 += 1) {
          mf_mma_m16n8k16(up[((i_1 * 2) + j_1)], frag_a_1[i_1], frag_b_1[j_1]);
        }
      }
    }
  }
  __syncthreads();
  // 585: tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
  float t_24[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_24[k] = mf_sigmoid(gate[(k / 4)].e[(k % 4)]);
  }
  float t_25[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_25[k] = (gate[(k / 4)].e[(k % 4)] * t_24[k]);
  }
  float t_26[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_26[k] = (t_25[k] * up[(k / 4)].e[(k % 4)]);
  }
  #pragma unroll
  for (int k = 0; (k < 8); k += 2) {
    __half t_27_0 = mf_cast<__half>(t_26[k]);
    __half t_27_1 = mf_cast<__half>(t_26[(k + 1)]);
    // 586: mask=(rm[:, None] < M) & (rn[None, :] < N))
    // 585: tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
    *reinterpret_cast<mf_vec<2, __half>*>((t_28_smem + (((((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 40) + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2))))) = mf_vec<2, __half>{{t_27_0, t_27_1}};
  }
  __syncthreads();
  __half run[8];
  {
    const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_28_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8))));
    run[0] = mf_v.v[0];
    run[1] = mf_v.v[1];
    run[2] = mf_v.v[2];
    run[3] = mf_v.v[3];
    run[4] = mf_v.v[4];
    run[5] = mf_v.v[5];
    run[6] = mf_v.v[6];
    run[7] = mf_v.v[7];
  }
  if ((((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) < mf_M) & ((t_1 + ((int(threadIdx.x % 32u) % 4) * 8)) < mf_N))) {
    *reinterpret_cast<mf_vec<8, __half>*>(((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{run[0], run[1], run[2], run[3], run[4], run[5], run[6], run[7]}};
  }
} else {
  // 117: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
  int t = (int(blockIdx.x) * 32);
  int t_1 = (int(blockIdx.y) * 32);
  // 578: gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 579: up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 580: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> gate[2];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    float gate_1 = 0.0f;
    gate[(k / 4)].e[(k % 4)] = gate_1;
  }
  mf_frag<float, 4> up[2];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    float up_1 = 0.0f;
    up[(k / 4)].e[(k % 4)] = up_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 581: rk = k0 + tl.arange(0, BLOCK_K)
    // 123: return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
    __half a[8];
    int rm_1 = (t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)));
    int rk_1 = (k0 + ((int(threadIdx.x % 32u) % 4) * 8));
    if ((rm_1 < mf_M)) {
      a[0] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[0];
      a[1] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[1];
      a[2] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[2];
      a[3] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[3];
      a[4] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[4];
      a[5] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[5];
      a[6] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[6];
      a[7] = ((x_ptr + (rm_1 * mf_K)) + rk_1)[7];
    } else {
      a[0] = __float2half(0.0f);
      a[1] = __float2half(0.0f);
      a[2] = __float2half(0.0f);
      a[3] = __float2half(0.0f);
      a[4] = __float2half(0.0f);
      a[5] = __float2half(0.0f);
      a[6] = __float2half(0.0f);
      a[7] = __float2half(0.0f);
    }
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_2 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_3 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_4 = (mf_K / 8);
    unsigned words[1];
    int rn_1 = (t_1 + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)));
    int kw_1 = (t_2 + (int(threadIdx.x % 32u) % 4));
    bool k_ok_1 = ((kw_1 / 8) < t_3);
    bool mask = ((rn_1 < mf_N) & k_ok_1);
    words[0] = (mask ? ((wg_ptr + (rn_1 * t_4)) + kw_1)[0] : 0u);
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      unsigned t_5 = (words[0] >> static_cast<unsigned>((k * 4)));
      unsigned t_6 = (t_5 & 15u);
      q[k] = static_cast<float>(t_6);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_7 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_8[1];
    int groups_1 = ((rn_1 * t_7) + (kw_1 / 8));
    t_8[0] = (mask ? (sg_ptr + groups_1)[0] : __float2half(0.0f));
    float scale[1];
    scale[0] = static_cast<float>(t_8[0]);
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_9[1];
    t_9[0] = (mask ? (bg_ptr + groups_1)[0] : __float2half(0.0f));
    float bias[1];
    bias[0] = static_cast<float>(t_9[0]);
    // 64: return q * scale + bias, kw, k_ok
    __half t_11[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float t_10 = (q[k] * scale[0]);
      float w = (t_10 + bias[0]);
      // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
      t_11[k] = mf_cast<__half>(w);
    }
    __syncthreads();
    *reinterpret_cast<mf_vec<8, __half>*>((t_12_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{t_11[0], t_11[1], t_11[2], t_11[3], t_11[4], t_11[5], t_11[6], t_11[7]}};
    // 583: gate = tl.dot(a, weights_t(a, wg_ptr, sg_ptr, bg_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), gate)
    *reinterpret_cast<mf_vec<8, __half>*>((a_1_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]}};
    __syncthreads();
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    int a_lane = (((warp_row + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8));
    int b_lane = ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (((warp_col + (((int(threadIdx.x % 32u) / 8) / 2) * 16)) + (int(threadIdx.x % 32u) % 8)) * 40));
    #pragma unroll 1
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[1];
      mf_frag<__half, 4> frag_b[2];
      #pragma unroll 1
      for (int i = 0; (i < 1); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_1_smem + a_lane), (((i * 32) * 40) + kk));
      }
      #pragma unroll 1
      for (int j = 0; (j < 2); j += 2) {
        mf_ldmatrix_pair<false>(frag_b[j], frag_b[(j + 1)], (t_12_smem + b_lane), (kk + ((j * 16) * 40)));
      }
      #pragma unroll 1
      for (int i = 0; (i < 1); i += 1) {
        #pragma unroll 1
        for (int j = 0; (j < 2); j += 1) {
          mf_mma_m16n8k16(gate[((i * 2) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_13 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_14 = (mf_K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_15 = (mf_K / 8);
    unsigned words_1[1];
    int kw_3 = (t_13 + (int(threadIdx.x % 32u) % 4));
    bool k_ok_3 = ((kw_3 / 8) < t_14);
    bool mask_2 = ((rn_1 < mf_N) & k_ok_3);
    words_1[0] = (mask_2 ? ((wu_ptr + (rn_1 * t_15)) + kw_3)[0] : 0u);
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q_1[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      unsigned t_16 = (words_1[0] >> static_cast<unsigned>((k * 4)));
      unsigned t_17 = (t_16 & 15u);
      q_1[k] = static_cast<float>(t_17);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_18 = (mf_K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_19[1];
    int groups_3 = ((rn_1 * t_18) + (kw_3 / 8));
    t_19[0] = (mask_2 ? (su_ptr + groups_3)[0] : __float2half(0.0f));
    float scale_1[1];
    scale_1[0] = static_cast<float>(t_19[0]);
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    __half t_20[1];
    t_20[0] = (mask_2 ? (bu_ptr + groups_3)[0] : __float2half(0.0f));
    float bias_1[1];
    bias_1[0] = static_cast<float>(t_20[0]);
    // 64: return q * scale + bias, kw, k_ok
    __half t_22[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float t_21 = (q_1[k] * scale_1[0]);
      float w_1 = (t_21 + bias_1[0]);
      // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
      t_22[k] = mf_cast<__half>(w_1);
    }
    __syncthreads();
    *reinterpret_cast<mf_vec<8, __half>*>((t_23_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))) = mf_vec<8, __half>{{t_22[0], t_22[1], t_22[2], t_22[3], t_22[4], t_22[5], t_22[6], t_22[7]}};
    __syncthreads();
    // 584: up = tl.dot(a, weights_t(a, wu_ptr, su_ptr, bu_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), up)
    int warp_row_1 = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col_1 = ((int(threadIdx.x / 32u) % 2) * 8);
    int a_lane_1 = (((warp_row_1 + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8));
    int b_lane_1 = ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (((warp_col_1 + (((int(threadIdx.x % 32u) / 8) / 2) * 16)) + (int(threadIdx.x % 32u) % 8)) * 40));
    #pragma unroll 1
    for (int kk_1 = 0; (kk_1 < 32); kk_1 += 16) {
      mf_frag<__half, 8> frag_a_1[1];
      mf_frag<__half, 4> frag_b_1[2];
      #pragma unroll 1
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        mf_ldmatrix<4, false>(frag_a_1[i_1], (a_1_smem + a_lane_1), (((i_1 * 32) * 40) + kk_1));
      }
      #pragma unroll 1
      for (int j_1 = 0; (j_1 < 2); j_1 += 2) {
        mf_ldmatrix_pair<false>(frag_b_1[j_1], frag_b_1[(j_1 + 1)], (t_23_smem + b_lane_1), (kk_1 + ((j_1 * 16) * 40)));
      }
      #pragma unroll 1
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        #pragma unroll 1
        for (int j_1 = 0; (j_1 < 2); j_1 += 1) {
          mf_mma_m16n8k16(up[((i_1 * 2) + j_1)], frag_a_1[i_1], frag_b_1[j_1]);
        }
      }
    }
  }
  __syncthreads();
  // 585: tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
  float t_24[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_24[k] = mf_sigmoid(gate[(k / 4)].e[(k % 4)]);
  }
  float t_25[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_25[k] = (gate[(k / 4)].e[(k % 4)] * t_24[k]);
  }
  float t_26[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    t_26[k] = (t_25[k] * up[(k / 4)].e[(k % 4)]);
  }
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 2) {
    __half t_27_0 = mf_cast<__half>(t_26[k]);
    __half t_27_1 = mf_cast<__half>(t_26[(k + 1)]);
    // 586: mask=(rm[:, None] < M) & (rn[None, :] < N))
    // 585: tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
    *reinterpret_cast<mf_vec<2, __half>*>((t_28_smem + (((((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 40) + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2))))) = mf_vec<2, __half>{{t_27_0, t_27_1}};
  }
  __syncthreads();
  __half run[8];
  {
    const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_28_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8))));
    run[0] = mf_v.v[0];
    run[1] = mf_v.v[1];
    run[2] = mf_v.v[2];
    run[3] = mf_v.v[3];
    run[4] = mf_v.v[4];
    run[5] = mf_v.v[5];
    run[6] = mf_v.v[6];
    run[7] = mf_v.v[7];
  }
  if ((((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) < mf_M) & ((t_1 + ((int(threadIdx.x % 32u) % 4) * 8)) < mf_N))) {
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[0] = run[0];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[1] = run[1];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[2] = run[2];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[3] = run[3];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[4] = run[4];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[5] = run[5];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[6] = run[6];
    ((out_ptr + ((t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * mf_N)) + (t_1 + ((int(threadIdx.x % 32u) % 4) * 8)))[7] = run[7];
  }
}
