
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

// A fragment's 8x8 matrices from shared memory in one instruction; each lane passes one 16-byte row.
template <int N, bool Trans, typename F> __device__ __forceinline__ void mf_ldmatrix(F& frag, const void* row) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
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
const auto mf_M = M[0];
const auto mf_N = N[0];
const auto mf_K = K[0];
__half* a_1_smem = reinterpret_cast<__half*>(mf_shared + 0);
__half* t_11_smem = reinterpret_cast<__half*>(mf_shared + 2560);
if (mf_is_aligned(x_ptr, 16)) {
  // 120: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
  int t = (int(blockIdx.x) * 32);
  int t_1 = (int(blockIdx.y) * 64);
  // 126: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 127: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> acc[4];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float acc_1 = 0.0f;
    acc[(k / 4)].e[(k % 4)] = acc_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 128: rk = k0 + tl.arange(0, BLOCK_K)
    // 126: return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
    int rm = t;
    __half a[8];
    int rm_1 = (t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)));
    int rk_1 = (k0 + ((int(threadIdx.x % 32u) % 4) * 8));
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, ((x_ptr + (rm_1 * mf_K)) + rk_1), ((rm_1 < mf_M) & (rk_1 < mf_K)));
      a[0] = mf_v.v[0];
      a[1] = mf_v.v[1];
      a[2] = mf_v.v[2];
      a[3] = mf_v.v[3];
      a[4] = mf_v.v[4];
      a[5] = mf_v.v[5];
      a[6] = mf_v.v[6];
      a[7] = mf_v.v[7];
    }
    // 130: w_mask = (rk[:, None] < K) & (rn[None, :] < N)
    // 131: words = tl.load(wq_ptr + rn[None, :] * (K // PER_WORD) + (rk // PER_WORD)[:, None], mask=w_mask, other=0)
    int t_2 = (mf_K / 8);
    int rn = t_1;
    unsigned words[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      int rn_1 = (t_1 + (((k % 2) * 32) + int(threadIdx.x % 32u)));
      int rk_2 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      bool w_mask = ((rk_2 < mf_K) & (rn_1 < mf_N));
      words[k] = (w_mask ? ((wq_ptr + (rn_1 * t_2)) + (rk_2 / 8))[0] : 0u);
    }
    // 132: q = ((words >> ((rk % PER_WORD) * BITS)[:, None]) & ((1 << BITS) - 1)).to(tl.float32)
    unsigned t_3[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      int rk_3 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      t_3[k] = (words[k] >> static_cast<unsigned>(((rk_3 % 8) * 4)));
    }
    unsigned t_4[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_4[k] = (t_3[k] & 15u);
    }
    float q[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      q[k] = static_cast<float>(t_4[k]);
    }
    // 133: groups = rn[None, :] * (K // GROUP) + (rk // GROUP)[:, None]
    int t_5 = (mf_K / 64);
    // 134: scale = tl.load(scales_ptr + groups, mask=w_mask, other=0.0).to(tl.float32)
    __half t_6[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      int rn_2 = (t_1 + (((k % 2) * 32) + int(threadIdx.x % 32u)));
      int rk_4 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      int groups_1 = ((rn_2 * t_5) + (rk_4 / 64));
      bool w_mask = ((rk_4 < mf_K) & (rn_2 < mf_N));
      t_6[k] = (w_mask ? (scales_ptr + groups_1)[0] : __float2half(0.0f));
    }
    float scale[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      scale[k] = static_cast<float>(t_6[k]);
    }
    // 135: bias = tl.load(biases_ptr + groups, mask=w_mask, other=0.0).to(tl.float32)
    __half t_7[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      int rn_3 = (t_1 + (((k % 2) * 32) + int(threadIdx.x % 32u)));
      int rk_5 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      int groups_2 = ((rn_3 * t_5) + (rk_5 / 64));
      bool w_mask = ((rk_5 < mf_K) & (rn_3 < mf_N));
      t_7[k] = (w_mask ? (biases_ptr + groups_2)[0] : __float2half(0.0f));
    }
    float bias[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      bias[k] = static_cast<float>(t_7[k]);
    }
    // 136: acc = tl.dot(a, (scale * q + bias).to(a.dtype), acc)
    float t_8[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_8[k] = (scale[k] * q[k]);
    }
    float t_9[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_9[k] = (t_8[k] + bias[k]);
    }
    __half t_10[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_10[k] = mf_cast<__half>(t_9[k]);
    }
    __syncthreads();
    mf_store_vec<8>((a_1_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8))), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_11_smem[(((((k / 2) * 4) + int(threadIdx.x / 32u)) * 72) + (((k % 2) * 32) + int(threadIdx.x % 32u)))] = t_10[k];
    }
    __syncthreads();
    int warp_row = 0;
    int warp_col = (int(threadIdx.x / 32u) * 8);
    #pragma unroll
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[2];
      mf_frag<__half, 4> frag_b[2];
      #pragma unroll
      for (int i = 0; (i < 2); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_1_smem + ((((warp_row + (i * 16)) + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (kk + (((int(threadIdx.x % 32u) / 8) / 2) * 8)))));
      }
      #pragma unroll
      for (int j = 0; (j < 2); j += 1) {
        mf_ldmatrix<2, true>(frag_b[j], (t_11_smem + (((kk + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 72) + (warp_col + (j * 32)))));
      }
      #pragma unroll
      for (int i = 0; (i < 2); i += 1) {
        #pragma unroll
        for (int j = 0; (j < 2); j += 1) {
          mf_mma_m16n8k16(acc[((i * 2) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
  }
  // 137: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
  __half t_12[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_12[k] = mf_cast<__half>(acc[(k / 4)].e[(k % 4)]);
  }
  // 138: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 137: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int rm = (t + ((((k / 4) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + (((k % 4) / 2) * 8))));
    int rn = (t_1 + ((((((k / 4) % 2) * 4) + int(threadIdx.x / 32u)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
    if (((rm < mf_M) & (rn < mf_N))) {
      *(((out_ptr + (rm * mf_N)) + rn)) = t_12[k];
    }
  }
} else {
  // 120: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
  int t = (int(blockIdx.x) * 32);
  int t_1 = (int(blockIdx.y) * 64);
  // 126: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 127: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> acc[4];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    float acc_1 = 0.0f;
    acc[(k / 4)].e[(k % 4)] = acc_1;
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 128: rk = k0 + tl.arange(0, BLOCK_K)
    // 126: return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
    int rm = t;
    __half a[8];
    int rm_1 = (t + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)));
    int rk_1 = (k0 + ((int(threadIdx.x % 32u) % 4) * 8));
    if (((rm_1 < mf_M) & (rk_1 < mf_K))) {
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
    // 130: w_mask = (rk[:, None] < K) & (rn[None, :] < N)
    // 131: words = tl.load(wq_ptr + rn[None, :] * (K // PER_WORD) + (rk // PER_WORD)[:, None], mask=w_mask, other=0)
    int t_2 = (mf_K / 8);
    int rn = t_1;
    unsigned words[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      int rn_1 = (t_1 + (((k % 2) * 32) + int(threadIdx.x % 32u)));
      int rk_2 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      bool w_mask = ((rk_2 < mf_K) & (rn_1 < mf_N));
      words[k] = (w_mask ? ((wq_ptr + (rn_1 * t_2)) + (rk_2 / 8))[0] : 0u);
    }
    // 132: q = ((words >> ((rk % PER_WORD) * BITS)[:, None]) & ((1 << BITS) - 1)).to(tl.float32)
    unsigned t_3[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      int rk_3 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      t_3[k] = (words[k] >> static_cast<unsigned>(((rk_3 % 8) * 4)));
    }
    unsigned t_4[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_4[k] = (t_3[k] & 15u);
    }
    float q[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      q[k] = static_cast<float>(t_4[k]);
    }
    // 133: groups = rn[None, :] * (K // GROUP) + (rk // GROUP)[:, None]
    int t_5 = (mf_K / 64);
    // 134: scale = tl.load(scales_ptr + groups, mask=w_mask, other=0.0).to(tl.float32)
    __half t_6[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      int rn_2 = (t_1 + (((k % 2) * 32) + int(threadIdx.x % 32u)));
      int rk_4 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      int groups_1 = ((rn_2 * t_5) + (rk_4 / 64));
      bool w_mask = ((rk_4 < mf_K) & (rn_2 < mf_N));
      t_6[k] = (w_mask ? (scales_ptr + groups_1)[0] : __float2half(0.0f));
    }
    float scale[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      scale[k] = static_cast<float>(t_6[k]);
    }
    // 135: bias = tl.load(biases_ptr + groups, mask=w_mask, other=0.0).to(tl.float32)
    __half t_7[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      int rn_3 = (t_1 + (((k % 2) * 32) + int(threadIdx.x % 32u)));
      int rk_5 = (k0 + (((k / 2) * 4) + int(threadIdx.x / 32u)));
      int groups_2 = ((rn_3 * t_5) + (rk_5 / 64));
      bool w_mask = ((rk_5 < mf_K) & (rn_3 < mf_N));
      t_7[k] = (w_mask ? (biases_ptr + groups_2)[0] : __float2half(0.0f));
    }
    float bias[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      bias[k] = static_cast<float>(t_7[k]);
    }
    // 136: acc = tl.dot(a, (scale * q + bias).to(a.dtype), acc)
    float t_8[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_8[k] = (scale[k] * q[k]);
    }
    float t_9[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_9[k] = (t_8[k] + bias[k]);
    }
    __half t_10[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_10[k] = mf_cast<__half>(t_9[k]);
    }
    __syncthreads();
    mf_store_vec<8>((a_1_smem + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8))), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_11_smem[(((((k / 2) * 4) + int(threadIdx.x / 32u)) * 72) + (((k % 2) * 32) + int(threadIdx.x % 32u)))] = t_10[k];
    }
    __syncthreads();
    int warp_row = 0;
    int warp_col = (int(threadIdx.x / 32u) * 8);
    #pragma unroll 1
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[2];
      mf_frag<__half, 4> frag_b[2];
      #pragma unroll 1
      for (int i = 0; (i < 2); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_1_smem + ((((warp_row + (i * 16)) + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (kk + (((int(threadIdx.x % 32u) / 8) / 2) * 8)))));
      }
      #pragma unroll 1
      for (int j = 0; (j < 2); j += 1) {
        mf_ldmatrix<2, true>(frag_b[j], (t_11_smem + (((kk + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 72) + (warp_col + (j * 32)))));
      }
      #pragma unroll 1
      for (int i = 0; (i < 2); i += 1) {
        #pragma unroll 1
        for (int j = 0; (j < 2); j += 1) {
          mf_mma_m16n8k16(acc[((i * 2) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
  }
  // 137: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
  __half t_12[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_12[k] = mf_cast<__half>(acc[(k / 4)].e[(k % 4)]);
  }
  // 138: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 137: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    int rm = (t + ((((k / 4) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + (((k % 4) / 2) * 8))));
    int rn = (t_1 + ((((((k / 4) % 2) * 4) + int(threadIdx.x / 32u)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
    if (((rm < mf_M) & (rn < mf_N))) {
      *(((out_ptr + (rm * mf_N)) + rn)) = t_12[k];
    }
  }
}
