
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

// Device -> shared copies that bypass registers (cp.async, sm_80+): `Bytes` of 4, 8 or 16, 16 cached
// in L2 only (.cg), to `offset` elements from `base` (the same base for a tile's copies: converted
// once, the offset folded into the instruction). A false mask copies no bytes and zero-fills the
// destination (src-size 0).
template <int Bytes, typename T> __device__ __forceinline__ void mf_cp_async(T* base, int offset, const void* src,
                                                                             bool mask = true) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(base)) + offset * unsigned(sizeof(T));
  if constexpr (Bytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(shared), "l"(src), "r"(mask ? 16 : 0));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" :: "r"(shared), "l"(src), "n"(Bytes),
                 "r"(mask ? Bytes : 0));
  }
}
__device__ __forceinline__ void mf_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending> __device__ __forceinline__ void mf_cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(Pending) : "memory");
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
__device__ __forceinline__ float mf_fdiv(float a, float b) {
  float y;
  asm("div.full.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b));
  return y;
}
template <typename T> __device__ __forceinline__ T mf_min(T a, T b) { return b < a ? b : a; }

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_L = L[0];
const auto mf_sm_scale = sm_scale[0];
const auto mf_past = past[0];
__half* k_1_smem = reinterpret_cast<__half*>(mf_shared + 0);
__half* v_smem = reinterpret_cast<__half*>(mf_shared + 9216);
__half* q_1_smem = reinterpret_cast<__half*>(mf_shared + 18432);
float* acc_2_smem = reinterpret_cast<float*>(mf_shared + 23040);
float* acc_3_smem = reinterpret_cast<float*>(mf_shared + 23296);
__half* t_23_smem = reinterpret_cast<__half*>(mf_shared + 23552);
__half* t_29_smem = reinterpret_cast<__half*>(mf_shared + 0);
if ((((mf_is_aligned(k_ptr, 16) && mf_is_aligned(o_ptr, 16)) && mf_is_aligned(q_ptr, 16)) && mf_is_aligned(v_ptr, 16))) {
  // 85: start_m = tl.program_id(0)
  // 86: head = tl.program_id(1)
  // 87: S = L + past
  int S = (mf_L + mf_past);
  // 88: kv_base = (head // GROUP) * S * D
  int t = (int(blockIdx.y) / 4);
  int t_1 = (t * S);
  int kv_base = (t_1 * 64);
  // 89: rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
  int t_2 = (int(blockIdx.x) * 32);
  // 90: rd = tl.arange(0, D)
  // 91: q = tl.load(q_ptr + head * L * D + rm[:, None] * D + rd[None, :], mask=rm[:, None] < L, other=0.0)
  int t_3 = (int(blockIdx.y) * mf_L);
  int t_4 = (t_3 * 64);
  decltype(q_ptr) t_5 = (q_ptr + t_4);
  __half q[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rm = (t_2 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, ((t_5 + (rm * 64)) + rd), (rm < mf_L));
      q[k] = mf_v.v[0];
      q[(k + 1)] = mf_v.v[1];
      q[(k + 2)] = mf_v.v[2];
      q[(k + 3)] = mf_v.v[3];
      q[(k + 4)] = mf_v.v[4];
      q[(k + 5)] = mf_v.v[5];
      q[(k + 6)] = mf_v.v[6];
      q[(k + 7)] = mf_v.v[7];
    }
  }
  // 92: m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
  // 93: l_i = tl.zeros((BLOCK_M,), tl.float32)
  // 94: acc = tl.zeros((BLOCK_M, D), tl.float32)
  // 96: whole = (S // BLOCK_N) * BLOCK_N  # blocks before `whole` are inside the keys and below the diagonal
  int t_6 = (S / 32);
  int whole = (t_6 * 32);
  // 98: hi = tl.minimum((start_m + 1) * BLOCK_M + past, S)
  int t_7 = (int(blockIdx.x) + 1);
  int t_8 = (t_7 * 32);
  int t_9 = (t_8 + mf_past);
  int hi = mf_min<int>(t_9, S);
  // 99: whole = tl.minimum(((start_m * BLOCK_M + past + 1) // BLOCK_N) * BLOCK_N, whole)
  int t_10 = (int(blockIdx.x) * 32);
  int t_11 = (t_10 + mf_past);
  int t_12 = (t_11 + 1);
  int t_13 = (t_12 / 32);
  int t_14 = (t_13 * 32);
  int whole_1 = mf_min<int>(t_14, whole);
  // 100: for start_n in range(0, hi, BLOCK_N):
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  bool t_15 = (0 < hi);
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  bool t_16 = (0 < hi);
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  float l_i[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float l_i_1 = 0.0f;
    l_i[k] = l_i_1;
  }
  float acc[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  float m_i[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    float m_i_1 = __uint_as_float(0xff800000u);
    m_i[k] = m_i_1;
  }
  int k_1_dst = ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8));
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rn = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    int kv = ((kv_base + (rn * 64)) + rd);
    mf_cp_async<16>((k_1_smem + k_1_dst), ((k * 2) * 72), (k_ptr + kv), ((rn < S) & t_15));
  }
  int v_dst = ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8));
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rn_1 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    int kv_1 = ((kv_base + (rn_1 * 64)) + rd);
    mf_cp_async<16>((v_smem + v_dst), ((k * 2) * 72), (v_ptr + kv_1), ((rn_1 < S) & t_16));
  }
  mf_cp_async_commit();
  int stage = 0;
  __syncthreads();
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    *reinterpret_cast<mf_vec<8, __half>*>((q_1_smem + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)))) = mf_vec<8, __half>{{q[k], q[(k + 1)], q[(k + 2)], q[(k + 3)], q[(k + 4)], q[(k + 5)], q[(k + 6)], q[(k + 7)]}};
  }
  __syncthreads();
  for (int start_n = 0; (start_n < hi); start_n += 32) {
    // 101: rn = start_n + tl.arange(0, BLOCK_N)
    // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
    int start_n_next = (start_n + 32);
    // 101: rn = start_n + tl.arange(0, BLOCK_N)
    // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
    // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
    bool t_17 = (start_n_next < hi);
    mf_cp_async_wait<0>();
    __syncthreads();
    int k_1_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)));
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int rn_2 = (start_n_next + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
      int rd = ((int(threadIdx.x % 32u) % 8) * 8);
      int kv_2 = ((kv_base + (rn_2 * 64)) + rd);
      mf_cp_async<16>((k_1_smem + k_1_dst_1), ((k * 2) * 72), (k_ptr + kv_2), ((rn_2 < S) & t_17));
    }
    // 104: qk = tl.dot(q, tl.trans(k)) * sm_scale
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    mf_frag<float, 4> frag_c[2];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      frag_c[(k / 4)].e[(k % 4)] = 0.0f;
    }
    int a_lane = (((warp_row + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 72) + (((int(threadIdx.x % 32u) / 8) / 2) * 8));
    int b_lane = ((stage * 2304) + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (((warp_col + (((int(threadIdx.x % 32u) / 8) / 2) * 16)) + (int(threadIdx.x % 32u) % 8)) * 72)));
    #pragma unroll
    for (int kk = 0; (kk < 64); kk += 16) {
      mf_frag<__half, 8> frag_a[1];
      mf_frag<__half, 4> frag_b[2];
      #pragma unroll
      for (int i = 0; (i < 1); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (q_1_smem + a_lane), (((i * 32) * 72) + kk));
      }
      #pragma unroll
      for (int j = 0; (j < 2); j += 2) {
        mf_ldmatrix_pair<false>(frag_b[j], frag_b[(j + 1)], (k_1_smem + b_lane), (kk + ((j * 16) * 72)));
      }
      #pragma unroll
      for (int i = 0; (i < 1); i += 1) {
        #pragma unroll
        for (int j = 0; (j < 2); j += 1) {
          mf_mma_m16n8k16(frag_c[((i * 2) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    float qk[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      qk[k] = (frag_c[(k / 4)].e[(k % 4)] * mf_sm_scale);
    }
    // 105: if start_n >= whole:  # only the blocks that cross the diagonal or the end are masked
    bool t_18 = (start_n >= whole_1);
    float qk_1[8];
    if (t_18) {
      // 108: qk = tl.where(rm[:, None] + past >= rn[None, :], qk, float("-inf"))
      int rm = t_2;
      #pragma unroll
      for (int k = 0; (k < 8); k += 1) {
        int rm_1 = (t_2 + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + (((k % 4) / 2) * 8))));
        int rn_4 = (start_n + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
        float qk_2 = (((rm_1 + mf_past) >= rn_4) ? qk[k] : __uint_as_float(0xff800000u));
        // 109: qk = tl.where(rn[None, :] < S, qk, float("-inf"))
        int rn_5 = (start_n + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
        float qk_3 = ((rn_5 < S) ? qk_2 : __uint_as_float(0xff800000u));
        float qk_4 = qk_3;
        qk_1[k] = qk_4;
      }
    } else {
      #pragma unroll
      for (int k = 0; (k < 8); k += 1) {
        float qk_5 = qk[k];
        qk_1[k] = qk_5;
      }
    }
    // 110: m_new = tl.maximum(m_i, tl.max(qk, 1))
    float acc_2[2];
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      acc_2[k] = qk_1[(k * 2)];
      acc_2[k] = fmaxf(acc_2[k], qk_1[((k * 2) + 1)]);
      acc_2[k] = fmaxf(acc_2[k], qk_1[(4 + (k * 2))]);
      acc_2[k] = fmaxf(acc_2[k], qk_1[((4 + (k * 2)) + 1)]);
    }
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      float partner = __shfl_xor_sync(0xffffffffu, acc_2[k], 1);
      acc_2[k] = fmaxf(acc_2[k], partner);
    }
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      float partner_1 = __shfl_xor_sync(0xffffffffu, acc_2[k], 2);
      acc_2[k] = fmaxf(acc_2[k], partner_1);
    }
    __syncthreads();
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      if (((((int(threadIdx.x % 32u) % 2) + (((int(threadIdx.x % 32u) / 2) % 2) * 2)) == 0) && ((int(threadIdx.x / 32u) % 2) < 2))) {
        acc_2_smem[(((int(threadIdx.x / 32u) % 2) * 32) + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))] = acc_2[k];
      }
    }
    __syncthreads();
    float m_new[2];
    float alpha[2];
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      acc_2[k] = acc_2_smem[(((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4)))];
      acc_2[k] = fmaxf(acc_2[k], acc_2_smem[(32 + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))]);
      m_new[k] = fmaxf(m_i[k], acc_2[k]);
      // 111: alpha = tl.exp(m_i - m_new)
      alpha[k] = mf_exp2(fmaf(m_i[k], 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
    }
    // 112: p = tl.exp(qk - m_new[:, None])
    float p[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      p[k] = mf_exp2(fmaf(qk_1[k], 1.4426950408889634f, (-(m_new[((k % 4) / 2)] * 1.4426950408889634f))));
    }
    // 113: l_i = l_i * alpha + tl.sum(p, 1)
    float t_19[2];
    float acc_3[2];
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      t_19[k] = (l_i[k] * alpha[k]);
      acc_3[k] = p[(k * 2)];
      acc_3[k] = (acc_3[k] + p[((k * 2) + 1)]);
      acc_3[k] = (acc_3[k] + p[(4 + (k * 2))]);
      acc_3[k] = (acc_3[k] + p[((4 + (k * 2)) + 1)]);
    }
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      float partner_2 = __shfl_xor_sync(0xffffffffu, acc_3[k], 1);
      acc_3[k] = (acc_3[k] + partner_2);
    }
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      float partner_3 = __shfl_xor_sync(0xffffffffu, acc_3[k], 2);
      acc_3[k] = (acc_3[k] + partner_3);
    }
    __syncthreads();
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      if (((((int(threadIdx.x % 32u) % 2) + (((int(threadIdx.x % 32u) / 2) % 2) * 2)) == 0) && ((int(threadIdx.x / 32u) % 2) < 2))) {
        acc_3_smem[(((int(threadIdx.x / 32u) % 2) * 32) + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))] = acc_3[k];
      }
    }
    __syncthreads();
    float l_i_2[2];
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      acc_3[k] = acc_3_smem[(((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4)))];
      acc_3[k] = (acc_3[k] + acc_3_smem[(32 + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))]);
      l_i_2[k] = (t_19[k] + acc_3[k]);
    }
    // 115: acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    float t_20[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_20[k] = (acc[k] * alpha[((k % 4) / 2)]);
    }
    __half t_21[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      t_21[k] = mf_cast<__half>(p[k]);
    }
    // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
    int start_n_next_1 = (start_n + 32);
    // 101: rn = start_n + tl.arange(0, BLOCK_N)
    // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
    // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
    bool t_22 = (start_n_next_1 < hi);
    int v_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)));
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int rn_6 = (start_n_next_1 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
      int rd = ((int(threadIdx.x % 32u) % 8) * 8);
      int kv_3 = ((kv_base + (rn_6 * 64)) + rd);
      mf_cp_async<16>((v_smem + v_dst_1), ((k * 2) * 72), (v_ptr + kv_3), ((rn_6 < S) & t_22));
    }
    // 115: acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    #pragma unroll
    for (int k = 0; (k < 8); k += 2) {
      *reinterpret_cast<mf_vec<2, __half>*>((t_23_smem + ((stage * 1280) + (((((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 40) + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2)))))) = mf_vec<2, __half>{{t_21[k], t_21[(k + 1)]}};
    }
    __syncthreads();
    int warp_row_1 = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col_1 = ((int(threadIdx.x / 32u) % 2) * 8);
    mf_frag<float, 4> frag_c_1[4];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      frag_c_1[(k / 4)].e[(k % 4)] = 0.0f;
    }
    int a_lane_1 = ((stage * 1280) + (((warp_row_1 + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8)));
    int b_lane_1 = ((stage * 2304) + ((((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8)) * 72) + (warp_col_1 + (((int(threadIdx.x % 32u) / 8) / 2) * 16))));
    #pragma unroll
    for (int kk_1 = 0; (kk_1 < 32); kk_1 += 16) {
      mf_frag<__half, 8> frag_a_1[1];
      mf_frag<__half, 4> frag_b_1[4];
      #pragma unroll
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        mf_ldmatrix<4, false>(frag_a_1[i_1], (t_23_smem + a_lane_1), (((i_1 * 32) * 40) + kk_1));
      }
      #pragma unroll
      for (int j_1 = 0; (j_1 < 4); j_1 += 2) {
        mf_ldmatrix_pair<true>(frag_b_1[j_1], frag_b_1[(j_1 + 1)], (v_smem + b_lane_1), ((kk_1 * 72) + (j_1 * 16)));
      }
      #pragma unroll
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        #pragma unroll
        for (int j_1 = 0; (j_1 < 4); j_1 += 1) {
          mf_mma_m16n8k16(frag_c_1[((i_1 * 4) + j_1)], frag_a_1[i_1], frag_b_1[j_1]);
        }
      }
    }
    float acc_4[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      acc_4[k] = (t_20[k] + frag_c_1[(k / 4)].e[(k % 4)]);
    }
    float l_i_3[2];
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      l_i_3[k] = l_i_2[k];
    }
    float acc_5[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      acc_5[k] = acc_4[k];
    }
    float m_new_1[2];
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      m_new_1[k] = m_new[k];
      l_i[k] = l_i_3[k];
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      acc[k] = acc_5[k];
    }
    #pragma unroll
    for (int k = 0; (k < 2); k += 1) {
      m_i[k] = m_new_1[k];
    }
    mf_cp_async_commit();
    stage = ((stage < 1) ? (stage + 1) : (stage - 1));
  }
  mf_cp_async_wait<0>();
  __syncthreads();
  // 117: tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
  int t_24 = (int(blockIdx.y) * mf_L);
  int t_25 = (t_24 * 64);
  decltype(o_ptr) t_26 = (o_ptr + t_25);
  #pragma unroll
  for (int k = 0; (k < 16); k += 2) {
    float t_27_0 = mf_fdiv(acc[k], l_i[((k % 4) / 2)]);
    __half t_28_0 = mf_cast<__half>(t_27_0);
    float t_27_1 = mf_fdiv(acc[(k + 1)], l_i[((k % 4) / 2)]);
    __half t_28_1 = mf_cast<__half>(t_27_1);
    // 118: mask=rm[:, None] < L)
    // 117: tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
    *reinterpret_cast<mf_vec<2, __half>*>((t_29_smem + (((((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 72) + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2))))) = mf_vec<2, __half>{{t_28_0, t_28_1}};
  }
  __syncthreads();
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    __half run[8];
    {
      const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_29_smem + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8))));
      run[0] = mf_v.v[0];
      run[1] = mf_v.v[1];
      run[2] = mf_v.v[2];
      run[3] = mf_v.v[3];
      run[4] = mf_v.v[4];
      run[5] = mf_v.v[5];
      run[6] = mf_v.v[6];
      run[7] = mf_v.v[7];
    }
    int rm = (t_2 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    if ((rm < mf_L)) {
      *reinterpret_cast<mf_vec<8, __half>*>(((t_26 + (rm * 64)) + rd)) = mf_vec<8, __half>{{run[0], run[1], run[2], run[3], run[4], run[5], run[6], run[7]}};
    }
  }
} else {
  // 85: start_m = tl.program_id(0)
  // 86: head = tl.program_id(1)
  // 87: S = L + past
  int S = (mf_L + mf_past);
  // 88: kv_base = (head // GROUP) * S * D
  int t = (int(blockIdx.y) / 4);
  int t_1 = (t * S);
  int kv_base = (t_1 * 64);
  // 89: rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
  int t_2 = (int(blockIdx.x) * 32);
  // 90: rd = tl.arange(0, D)
  // 91: q = tl.load(q_ptr + head * L * D + rm[:, None] * D + rd[None, :], mask=rm[:, None] < L, other=0.0)
  int t_3 = (int(blockIdx.y) * mf_L);
  int t_4 = (t_3 * 64);
  decltype(q_ptr) t_5 = (q_ptr + t_4);
  __half q[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rm = (t_2 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    if ((rm < mf_L)) {
      q[k] = ((t_5 + (rm * 64)) + rd)[0];
      q[(k + 1)] = ((t_5 + (rm * 64)) + rd)[1];
      q[(k + 2)] = ((t_5 + (rm * 64)) + rd)[2];
      q[(k + 3)] = ((t_5 + (rm * 64)) + rd)[3];
      q[(k + 4)] = ((t_5 + (rm * 64)) + rd)[4];
      q[(k + 5)] = ((t_5 + (rm * 64)) + rd)[5];
      q[(k + 6)] = ((t_5 + (rm * 64)) + rd)[6];
      q[(k + 7)] = ((t_5 + (rm * 64)) + rd)[7];
    } else {
      q[k] = __float2half(0.0f);
      q[(k + 1)] = __float2half(0.0f);
      q[(k + 2)] = __float2half(0.0f);
      q[(k + 3)] = __float2half(0.0f);
      q[(k + 4)] = __float2half(0.0f);
      q[(k + 5)] = __float2half(0.0f);
      q[(k + 6)] = __float2half(0.0f);
      q[(k + 7)] = __float2half(0.0f);
    }
  }
  // 92: m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
  // 93: l_i = tl.zeros((BLOCK_M,), tl.float32)
  // 94: acc = tl.zeros((BLOCK_M, D), tl.float32)
  // 96: whole = (S // BLOCK_N) * BLOCK_N  # blocks before `whole` are inside the keys and below the diagonal
  int t_6 = (S / 32);
  int whole = (t_6 * 32);
  // 98: hi = tl.minimum((start_m + 1) * BLOCK_M + past, S)
  int t_7 = (int(blockIdx.x) + 1);
  int t_8 = (t_7 * 32);
  int t_9 = (t_8 + mf_past);
  int hi = mf_min<int>(t_9, S);
  // 99: whole = tl.minimum(((start_m * BLOCK_M + past + 1) // BLOCK_N) * BLOCK_N, whole)
  int t_10 = (int(blockIdx.x) * 32);
  int t_11 = (t_10 + mf_past);
  int t_12 = (t_11 + 1);
  int t_13 = (t_12 / 32);
  int t_14 = (t_13 * 32);
  int whole_1 = mf_min<int>(t_14, whole);
  // 100: for start_n in range(0, hi, BLOCK_N):
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  bool t_15 = (0 < hi);
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  bool t_16 = (0 < hi);
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  float l_i[2];
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float l_i_1 = 0.0f;
    l_i[k] = l_i_1;
  }
  float acc[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  float m_i[2];
  #pragma unroll 1
  for (int k = 0; (k < 2); k += 1) {
    float m_i_1 = __uint_as_float(0xff800000u);
    m_i[k] = m_i_1;
  }
  int k_1_dst = ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8));
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rn = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    int kv = ((kv_base + (rn * 64)) + rd);
    if (((rn < S) & t_15)) {
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[0] = (k_ptr + kv)[0];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[1] = (k_ptr + kv)[1];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[2] = (k_ptr + kv)[2];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[3] = (k_ptr + kv)[3];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[4] = (k_ptr + kv)[4];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[5] = (k_ptr + kv)[5];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[6] = (k_ptr + kv)[6];
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[7] = (k_ptr + kv)[7];
    } else {
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[0] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[1] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[2] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[3] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[4] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[5] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[6] = __float2half(0.0f);
      ((k_1_smem + k_1_dst) + ((k * 2) * 72))[7] = __float2half(0.0f);
    }
  }
  int v_dst = ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8));
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rn_1 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    int kv_1 = ((kv_base + (rn_1 * 64)) + rd);
    if (((rn_1 < S) & t_16)) {
      ((v_smem + v_dst) + ((k * 2) * 72))[0] = (v_ptr + kv_1)[0];
      ((v_smem + v_dst) + ((k * 2) * 72))[1] = (v_ptr + kv_1)[1];
      ((v_smem + v_dst) + ((k * 2) * 72))[2] = (v_ptr + kv_1)[2];
      ((v_smem + v_dst) + ((k * 2) * 72))[3] = (v_ptr + kv_1)[3];
      ((v_smem + v_dst) + ((k * 2) * 72))[4] = (v_ptr + kv_1)[4];
      ((v_smem + v_dst) + ((k * 2) * 72))[5] = (v_ptr + kv_1)[5];
      ((v_smem + v_dst) + ((k * 2) * 72))[6] = (v_ptr + kv_1)[6];
      ((v_smem + v_dst) + ((k * 2) * 72))[7] = (v_ptr + kv_1)[7];
    } else {
      ((v_smem + v_dst) + ((k * 2) * 72))[0] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[1] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[2] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[3] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[4] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[5] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[6] = __float2half(0.0f);
      ((v_smem + v_dst) + ((k * 2) * 72))[7] = __float2half(0.0f);
    }
  }
  mf_cp_async_commit();
  int stage = 0;
  __syncthreads();
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    *reinterpret_cast<mf_vec<8, __half>*>((q_1_smem + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)))) = mf_vec<8, __half>{{q[k], q[(k + 1)], q[(k + 2)], q[(k + 3)], q[(k + 4)], q[(k + 5)], q[(k + 6)], q[(k + 7)]}};
  }
  __syncthreads();
  for (int start_n = 0; (start_n < hi); start_n += 32) {
    // 101: rn = start_n + tl.arange(0, BLOCK_N)
    // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
    int start_n_next = (start_n + 32);
    // 101: rn = start_n + tl.arange(0, BLOCK_N)
    // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
    // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
    bool t_17 = (start_n_next < hi);
    mf_cp_async_wait<0>();
    __syncthreads();
    int k_1_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)));
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int rn_2 = (start_n_next + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
      int rd = ((int(threadIdx.x % 32u) % 8) * 8);
      int kv_2 = ((kv_base + (rn_2 * 64)) + rd);
      if (((rn_2 < S) & t_17)) {
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[0] = (k_ptr + kv_2)[0];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[1] = (k_ptr + kv_2)[1];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[2] = (k_ptr + kv_2)[2];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[3] = (k_ptr + kv_2)[3];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[4] = (k_ptr + kv_2)[4];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[5] = (k_ptr + kv_2)[5];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[6] = (k_ptr + kv_2)[6];
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[7] = (k_ptr + kv_2)[7];
      } else {
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[0] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[1] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[2] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[3] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[4] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[5] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[6] = __float2half(0.0f);
        ((k_1_smem + k_1_dst_1) + ((k * 2) * 72))[7] = __float2half(0.0f);
      }
    }
    // 104: qk = tl.dot(q, tl.trans(k)) * sm_scale
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    mf_frag<float, 4> frag_c[2];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      frag_c[(k / 4)].e[(k % 4)] = 0.0f;
    }
    int a_lane = (((warp_row + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 72) + (((int(threadIdx.x % 32u) / 8) / 2) * 8));
    int b_lane = ((stage * 2304) + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (((warp_col + (((int(threadIdx.x % 32u) / 8) / 2) * 16)) + (int(threadIdx.x % 32u) % 8)) * 72)));
    #pragma unroll 1
    for (int kk = 0; (kk < 64); kk += 16) {
      mf_frag<__half, 8> frag_a[1];
      mf_frag<__half, 4> frag_b[2];
      #pragma unroll 1
      for (int i = 0; (i < 1); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (q_1_smem + a_lane), (((i * 32) * 72) + kk));
      }
      #pragma unroll 1
      for (int j = 0; (j < 2); j += 2) {
        mf_ldmatrix_pair<false>(frag_b[j], frag_b[(j + 1)], (k_1_smem + b_lane), (kk + ((j * 16) * 72)));
      }
      #pragma unroll 1
      for (int i = 0; (i < 1); i += 1) {
        #pragma unroll 1
        for (int j = 0; (j < 2); j += 1) {
          mf_mma_m16n8k16(frag_c[((i * 2) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    float qk[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      qk[k] = (frag_c[(k / 4)].e[(k % 4)] * mf_sm_scale);
    }
    // 105: if start_n >= whole:  # only the blocks that cross the diagonal or the end are masked
    bool t_18 = (start_n >= whole_1);
    float qk_1[8];
    if (t_18) {
      // 108: qk = tl.where(rm[:, None] + past >= rn[None, :], qk, float("-inf"))
      int rm = t_2;
      #pragma unroll 1
      for (int k = 0; (k < 8); k += 1) {
        int rm_1 = (t_2 + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + (((k % 4) / 2) * 8))));
        int rn_4 = (start_n + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
        float qk_2 = (((rm_1 + mf_past) >= rn_4) ? qk[k] : __uint_as_float(0xff800000u));
        // 109: qk = tl.where(rn[None, :] < S, qk, float("-inf"))
        int rn_5 = (start_n + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
        float qk_3 = ((rn_5 < S) ? qk_2 : __uint_as_float(0xff800000u));
        float qk_4 = qk_3;
        qk_1[k] = qk_4;
      }
    } else {
      #pragma unroll 1
      for (int k = 0; (k < 8); k += 1) {
        float qk_5 = qk[k];
        qk_1[k] = qk_5;
      }
    }
    // 110: m_new = tl.maximum(m_i, tl.max(qk, 1))
    float acc_2[2];
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      acc_2[k] = qk_1[(k * 2)];
      acc_2[k] = fmaxf(acc_2[k], qk_1[((k * 2) + 1)]);
      acc_2[k] = fmaxf(acc_2[k], qk_1[(4 + (k * 2))]);
      acc_2[k] = fmaxf(acc_2[k], qk_1[((4 + (k * 2)) + 1)]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      float partner = __shfl_xor_sync(0xffffffffu, acc_2[k], 1);
      acc_2[k] = fmaxf(acc_2[k], partner);
    }
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      float partner_1 = __shfl_xor_sync(0xffffffffu, acc_2[k], 2);
      acc_2[k] = fmaxf(acc_2[k], partner_1);
    }
    __syncthreads();
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      if (((((int(threadIdx.x % 32u) % 2) + (((int(threadIdx.x % 32u) / 2) % 2) * 2)) == 0) && ((int(threadIdx.x / 32u) % 2) < 2))) {
        acc_2_smem[(((int(threadIdx.x / 32u) % 2) * 32) + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))] = acc_2[k];
      }
    }
    __syncthreads();
    float m_new[2];
    float alpha[2];
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      acc_2[k] = acc_2_smem[(((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4)))];
      acc_2[k] = fmaxf(acc_2[k], acc_2_smem[(32 + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))]);
      m_new[k] = fmaxf(m_i[k], acc_2[k]);
      // 111: alpha = tl.exp(m_i - m_new)
      alpha[k] = mf_exp2(fmaf(m_i[k], 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
    }
    // 112: p = tl.exp(qk - m_new[:, None])
    float p[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      p[k] = mf_exp2(fmaf(qk_1[k], 1.4426950408889634f, (-(m_new[((k % 4) / 2)] * 1.4426950408889634f))));
    }
    // 113: l_i = l_i * alpha + tl.sum(p, 1)
    float t_19[2];
    float acc_3[2];
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      t_19[k] = (l_i[k] * alpha[k]);
      acc_3[k] = p[(k * 2)];
      acc_3[k] = (acc_3[k] + p[((k * 2) + 1)]);
      acc_3[k] = (acc_3[k] + p[(4 + (k * 2))]);
      acc_3[k] = (acc_3[k] + p[((4 + (k * 2)) + 1)]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      float partner_2 = __shfl_xor_sync(0xffffffffu, acc_3[k], 1);
      acc_3[k] = (acc_3[k] + partner_2);
    }
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      float partner_3 = __shfl_xor_sync(0xffffffffu, acc_3[k], 2);
      acc_3[k] = (acc_3[k] + partner_3);
    }
    __syncthreads();
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      if (((((int(threadIdx.x % 32u) % 2) + (((int(threadIdx.x % 32u) / 2) % 2) * 2)) == 0) && ((int(threadIdx.x / 32u) % 2) < 2))) {
        acc_3_smem[(((int(threadIdx.x / 32u) % 2) * 32) + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))] = acc_3[k];
      }
    }
    __syncthreads();
    float l_i_2[2];
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      acc_3[k] = acc_3_smem[(((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4)))];
      acc_3[k] = (acc_3[k] + acc_3_smem[(32 + (((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k * 2) * 4))))]);
      l_i_2[k] = (t_19[k] + acc_3[k]);
    }
    // 115: acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    float t_20[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_20[k] = (acc[k] * alpha[((k % 4) / 2)]);
    }
    __half t_21[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      t_21[k] = mf_cast<__half>(p[k]);
    }
    // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
    int start_n_next_1 = (start_n + 32);
    // 101: rn = start_n + tl.arange(0, BLOCK_N)
    // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
    // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
    bool t_22 = (start_n_next_1 < hi);
    int v_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)));
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int rn_6 = (start_n_next_1 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
      int rd = ((int(threadIdx.x % 32u) % 8) * 8);
      int kv_3 = ((kv_base + (rn_6 * 64)) + rd);
      if (((rn_6 < S) & t_22)) {
        ((v_smem + v_dst_1) + ((k * 2) * 72))[0] = (v_ptr + kv_3)[0];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[1] = (v_ptr + kv_3)[1];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[2] = (v_ptr + kv_3)[2];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[3] = (v_ptr + kv_3)[3];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[4] = (v_ptr + kv_3)[4];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[5] = (v_ptr + kv_3)[5];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[6] = (v_ptr + kv_3)[6];
        ((v_smem + v_dst_1) + ((k * 2) * 72))[7] = (v_ptr + kv_3)[7];
      } else {
        ((v_smem + v_dst_1) + ((k * 2) * 72))[0] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[1] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[2] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[3] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[4] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[5] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[6] = __float2half(0.0f);
        ((v_smem + v_dst_1) + ((k * 2) * 72))[7] = __float2half(0.0f);
      }
    }
    // 115: acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 2) {
      *reinterpret_cast<mf_vec<2, __half>*>((t_23_smem + ((stage * 1280) + (((((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 40) + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2)))))) = mf_vec<2, __half>{{t_21[k], t_21[(k + 1)]}};
    }
    __syncthreads();
    int warp_row_1 = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col_1 = ((int(threadIdx.x / 32u) % 2) * 8);
    mf_frag<float, 4> frag_c_1[4];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      frag_c_1[(k / 4)].e[(k % 4)] = 0.0f;
    }
    int a_lane_1 = ((stage * 1280) + (((warp_row_1 + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8)));
    int b_lane_1 = ((stage * 2304) + ((((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8)) * 72) + (warp_col_1 + (((int(threadIdx.x % 32u) / 8) / 2) * 16))));
    #pragma unroll 1
    for (int kk_1 = 0; (kk_1 < 32); kk_1 += 16) {
      mf_frag<__half, 8> frag_a_1[1];
      mf_frag<__half, 4> frag_b_1[4];
      #pragma unroll 1
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        mf_ldmatrix<4, false>(frag_a_1[i_1], (t_23_smem + a_lane_1), (((i_1 * 32) * 40) + kk_1));
      }
      #pragma unroll 1
      for (int j_1 = 0; (j_1 < 4); j_1 += 2) {
        mf_ldmatrix_pair<true>(frag_b_1[j_1], frag_b_1[(j_1 + 1)], (v_smem + b_lane_1), ((kk_1 * 72) + (j_1 * 16)));
      }
      #pragma unroll 1
      for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
        #pragma unroll 1
        for (int j_1 = 0; (j_1 < 4); j_1 += 1) {
          mf_mma_m16n8k16(frag_c_1[((i_1 * 4) + j_1)], frag_a_1[i_1], frag_b_1[j_1]);
        }
      }
    }
    float acc_4[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      acc_4[k] = (t_20[k] + frag_c_1[(k / 4)].e[(k % 4)]);
    }
    float l_i_3[2];
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      l_i_3[k] = l_i_2[k];
    }
    float acc_5[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      acc_5[k] = acc_4[k];
    }
    float m_new_1[2];
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      m_new_1[k] = m_new[k];
      l_i[k] = l_i_3[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      acc[k] = acc_5[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 2); k += 1) {
      m_i[k] = m_new_1[k];
    }
    mf_cp_async_commit();
    stage = ((stage < 1) ? (stage + 1) : (stage - 1));
  }
  mf_cp_async_wait<0>();
  __syncthreads();
  // 117: tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
  int t_24 = (int(blockIdx.y) * mf_L);
  int t_25 = (t_24 * 64);
  decltype(o_ptr) t_26 = (o_ptr + t_25);
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 2) {
    float t_27_0 = mf_fdiv(acc[k], l_i[((k % 4) / 2)]);
    __half t_28_0 = mf_cast<__half>(t_27_0);
    float t_27_1 = mf_fdiv(acc[(k + 1)], l_i[((k % 4) / 2)]);
    __half t_28_1 = mf_cast<__half>(t_27_1);
    // 118: mask=rm[:, None] < L)
    // 117: tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
    *reinterpret_cast<mf_vec<2, __half>*>((t_29_smem + (((((int(threadIdx.x / 32u) / 2) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 72) + (((((k / 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2))))) = mf_vec<2, __half>{{t_28_0, t_28_1}};
  }
  __syncthreads();
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    __half run[8];
    {
      const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_29_smem + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8))));
      run[0] = mf_v.v[0];
      run[1] = mf_v.v[1];
      run[2] = mf_v.v[2];
      run[3] = mf_v.v[3];
      run[4] = mf_v.v[4];
      run[5] = mf_v.v[5];
      run[6] = mf_v.v[6];
      run[7] = mf_v.v[7];
    }
    int rm = (t_2 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
    int rd = ((int(threadIdx.x % 32u) % 8) * 8);
    if ((rm < mf_L)) {
      ((t_26 + (rm * 64)) + rd)[0] = run[0];
      ((t_26 + (rm * 64)) + rd)[1] = run[1];
      ((t_26 + (rm * 64)) + rd)[2] = run[2];
      ((t_26 + (rm * 64)) + rd)[3] = run[3];
      ((t_26 + (rm * 64)) + rd)[4] = run[4];
      ((t_26 + (rm * 64)) + rd)[5] = run[5];
      ((t_26 + (rm * 64)) + rd)[6] = run[6];
      ((t_26 + (rm * 64)) + rd)[7] = run[7];
    }
  }
}
