
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
template <typename T> __device__ __forceinline__ T mf_min(T a, T b) { return b < a ? b : a; }

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_M = M[0];
const auto mf_N = N[0];
const auto mf_K = K[0];
__half* a_smem = reinterpret_cast<__half*>(mf_shared + 0);
__half* b_smem = reinterpret_cast<__half*>(mf_shared + 10240);
__half* t_21_smem = reinterpret_cast<__half*>(mf_shared + 0);
if (((mf_is_aligned(a_ptr, 16) && mf_is_aligned(b_ptr, 16)) && mf_is_aligned(c_ptr, 16))) {
  // 63: pid = tl.program_id(0)
  // 64: num_pid_m = tl.cdiv(M, BLOCK_M)
  int t = (mf_M + 64);
  int t_1 = (t - 1);
  int num_pid_m = (t_1 / 64);
  // 65: num_pid_n = tl.cdiv(N, BLOCK_N)
  int t_2 = (mf_N + 64);
  int t_3 = (t_2 - 1);
  int num_pid_n = (t_3 / 64);
  // 66: num_pid_in_group = GROUP_M * num_pid_n
  int num_pid_in_group = (8 * num_pid_n);
  // 67: first_pid_m = (pid // num_pid_in_group) * GROUP_M
  int t_4 = (int(blockIdx.x) / num_pid_in_group);
  int first_pid_m = (t_4 * 8);
  // 68: group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may have fewer tile rows
  int t_5 = (num_pid_m - first_pid_m);
  int group_size_m = mf_min<int>(t_5, 8);
  // 69: pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
  int t_6 = (int(blockIdx.x) % num_pid_in_group);
  int t_7 = (t_6 % group_size_m);
  int pid_m = (first_pid_m + t_7);
  // 70: pid_n = (pid % num_pid_in_group) // group_size_m
  int t_8 = (int(blockIdx.x) % num_pid_in_group);
  int pid_n = (t_8 / group_size_m);
  // 71: rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
  int t_9 = (pid_m * 64);
  // 72: rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
  int t_10 = (pid_n * 64);
  // 73: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 74: for k0 in range(0, K, BLOCK_K):
  // 75: rk = k0 + tl.arange(0, BLOCK_K)
  // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  // 74: for k0 in range(0, K, BLOCK_K):
  bool t_11 = (0 < mf_K);
  // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  int t_12 = 32;
  decltype(a_ptr) a_ptr_1 = (a_ptr + t_12);
  int t_13 = 32;
  // 75: rk = k0 + tl.arange(0, BLOCK_K)
  // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  // 74: for k0 in range(0, K, BLOCK_K):
  bool t_14 = (0 < mf_K);
  // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  int t_15 = mf_N;
  int t_16 = (t_15 * 32);
  decltype(b_ptr) b_ptr_1 = (b_ptr + t_16);
  int t_17 = (t_15 * 32);
  // 74: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> acc[8];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    float acc_1 = 0.0f;
    acc[(k / 4)].e[(k % 4)] = acc_1;
  }
  decltype(a_ptr) a_ptr_k;
  a_ptr_k = a_ptr_1;
  decltype(b_ptr) b_ptr_k;
  b_ptr_k = b_ptr_1;
  int a_dst = ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8));
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rm = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
    int rk = ((int(threadIdx.x % 32u) % 4) * 8);
    mf_cp_async<16>((a_smem + a_dst), ((k * 4) * 40), ((a_ptr + (rm * mf_K)) + rk), ((rm < mf_M) & t_11));
  }
  int b_dst = ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8));
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rk_1 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
    mf_cp_async<16>((b_smem + b_dst), ((k * 2) * 72), ((b_ptr + (rk_1 * mf_N)) + rn), ((rn < mf_N) & t_14));
  }
  mf_cp_async_commit();
  int stage = 0;
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    int k0_next = (k0 + 32);
    bool t_18 = (k0_next < mf_K);
    // 75: rk = k0 + tl.arange(0, BLOCK_K)
    // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    mf_cp_async_wait<0>();
    __syncthreads();
    int a_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2560) + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)));
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int rm = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
      int rk_2 = ((int(threadIdx.x % 32u) % 4) * 8);
      mf_cp_async<16>((a_smem + a_dst_1), ((k * 4) * 40), ((a_ptr_k + (rm * mf_K)) + rk_2), ((rm < mf_M) & t_18));
    }
    decltype(a_ptr) a_ptr_next = (a_ptr_k + t_13);
    // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int k0_next_1 = (k0 + 32);
    bool t_19 = (k0_next_1 < mf_K);
    // 75: rk = k0 + tl.arange(0, BLOCK_K)
    // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int b_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)));
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int rk_3 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
      int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
      mf_cp_async<16>((b_smem + b_dst_1), ((k * 2) * 72), ((b_ptr_k + (rk_3 * mf_N)) + rn), ((rn < mf_N) & t_19));
    }
    decltype(b_ptr) b_ptr_next = (b_ptr_k + t_17);
    // 78: acc = tl.dot(a, b, acc)
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    int a_lane = ((stage * 2560) + (((warp_row + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8)));
    int b_lane = ((stage * 2304) + ((((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8)) * 72) + (warp_col + (((int(threadIdx.x % 32u) / 8) / 2) * 16))));
    #pragma unroll
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[2];
      mf_frag<__half, 4> frag_b[4];
      #pragma unroll
      for (int i = 0; (i < 2); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_smem + a_lane), (((i * 32) * 40) + kk));
      }
      #pragma unroll
      for (int j = 0; (j < 4); j += 2) {
        mf_ldmatrix_pair<true>(frag_b[j], frag_b[(j + 1)], (b_smem + b_lane), ((kk * 72) + (j * 16)));
      }
      #pragma unroll
      for (int i = 0; (i < 2); i += 1) {
        #pragma unroll
        for (int j = 0; (j < 4); j += 1) {
          mf_mma_m16n8k16(acc[((i * 4) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    decltype(a_ptr) a_ptr_next_1;
    a_ptr_next_1 = a_ptr_next;
    decltype(b_ptr) b_ptr_next_1;
    b_ptr_next_1 = b_ptr_next;
    a_ptr_k = a_ptr_next_1;
    b_ptr_k = b_ptr_next_1;
    mf_cp_async_commit();
    stage = ((stage < 1) ? (stage + 1) : (stage - 1));
  }
  mf_cp_async_wait<0>();
  __syncthreads();
  // 79: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  __half t_20[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    t_20[k] = mf_cast<__half>(acc[(k / 4)].e[(k % 4)]);
  }
  // 80: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 79: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  #pragma unroll
  for (int k = 0; (k < 32); k += 2) {
    *reinterpret_cast<mf_vec<2, __half>*>((t_21_smem + ((((((((k / 4) / 4) * 2) + (int(threadIdx.x / 32u) / 2)) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 72) + ((((((k / 4) % 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2))))) = mf_vec<2, __half>{{t_20[k], t_20[(k + 1)]}};
  }
  __syncthreads();
  #pragma unroll
  for (int k = 0; (k < 32); k += 8) {
    __half run[8];
    {
      const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_21_smem + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8))));
      run[0] = mf_v.v[0];
      run[1] = mf_v.v[1];
      run[2] = mf_v.v[2];
      run[3] = mf_v.v[3];
      run[4] = mf_v.v[4];
      run[5] = mf_v.v[5];
      run[6] = mf_v.v[6];
      run[7] = mf_v.v[7];
    }
    int rm = (t_9 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
    int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
    if (((rm < mf_M) & (rn < mf_N))) {
      *reinterpret_cast<mf_vec<8, __half>*>(((c_ptr + (rm * mf_N)) + rn)) = mf_vec<8, __half>{{run[0], run[1], run[2], run[3], run[4], run[5], run[6], run[7]}};
    }
  }
} else {
  // 63: pid = tl.program_id(0)
  // 64: num_pid_m = tl.cdiv(M, BLOCK_M)
  int t = (mf_M + 64);
  int t_1 = (t - 1);
  int num_pid_m = (t_1 / 64);
  // 65: num_pid_n = tl.cdiv(N, BLOCK_N)
  int t_2 = (mf_N + 64);
  int t_3 = (t_2 - 1);
  int num_pid_n = (t_3 / 64);
  // 66: num_pid_in_group = GROUP_M * num_pid_n
  int num_pid_in_group = (8 * num_pid_n);
  // 67: first_pid_m = (pid // num_pid_in_group) * GROUP_M
  int t_4 = (int(blockIdx.x) / num_pid_in_group);
  int first_pid_m = (t_4 * 8);
  // 68: group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may have fewer tile rows
  int t_5 = (num_pid_m - first_pid_m);
  int group_size_m = mf_min<int>(t_5, 8);
  // 69: pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
  int t_6 = (int(blockIdx.x) % num_pid_in_group);
  int t_7 = (t_6 % group_size_m);
  int pid_m = (first_pid_m + t_7);
  // 70: pid_n = (pid % num_pid_in_group) // group_size_m
  int t_8 = (int(blockIdx.x) % num_pid_in_group);
  int pid_n = (t_8 / group_size_m);
  // 71: rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
  int t_9 = (pid_m * 64);
  // 72: rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
  int t_10 = (pid_n * 64);
  // 73: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 74: for k0 in range(0, K, BLOCK_K):
  // 75: rk = k0 + tl.arange(0, BLOCK_K)
  // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  // 74: for k0 in range(0, K, BLOCK_K):
  bool t_11 = (0 < mf_K);
  // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  int t_12 = 32;
  decltype(a_ptr) a_ptr_1 = (a_ptr + t_12);
  int t_13 = 32;
  // 75: rk = k0 + tl.arange(0, BLOCK_K)
  // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  // 74: for k0 in range(0, K, BLOCK_K):
  bool t_14 = (0 < mf_K);
  // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  int t_15 = mf_N;
  int t_16 = (t_15 * 32);
  decltype(b_ptr) b_ptr_1 = (b_ptr + t_16);
  int t_17 = (t_15 * 32);
  // 74: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> acc[8];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 1) {
    float acc_1 = 0.0f;
    acc[(k / 4)].e[(k % 4)] = acc_1;
  }
  decltype(a_ptr) a_ptr_k;
  a_ptr_k = a_ptr_1;
  decltype(b_ptr) b_ptr_k;
  b_ptr_k = b_ptr_1;
  int a_dst = ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8));
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rm = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
    int rk = ((int(threadIdx.x % 32u) % 4) * 8);
    if (((rm < mf_M) & t_11)) {
      ((a_smem + a_dst) + ((k * 4) * 40))[0] = ((a_ptr + (rm * mf_K)) + rk)[0];
      ((a_smem + a_dst) + ((k * 4) * 40))[1] = ((a_ptr + (rm * mf_K)) + rk)[1];
      ((a_smem + a_dst) + ((k * 4) * 40))[2] = ((a_ptr + (rm * mf_K)) + rk)[2];
      ((a_smem + a_dst) + ((k * 4) * 40))[3] = ((a_ptr + (rm * mf_K)) + rk)[3];
      ((a_smem + a_dst) + ((k * 4) * 40))[4] = ((a_ptr + (rm * mf_K)) + rk)[4];
      ((a_smem + a_dst) + ((k * 4) * 40))[5] = ((a_ptr + (rm * mf_K)) + rk)[5];
      ((a_smem + a_dst) + ((k * 4) * 40))[6] = ((a_ptr + (rm * mf_K)) + rk)[6];
      ((a_smem + a_dst) + ((k * 4) * 40))[7] = ((a_ptr + (rm * mf_K)) + rk)[7];
    } else {
      ((a_smem + a_dst) + ((k * 4) * 40))[0] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[1] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[2] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[3] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[4] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[5] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[6] = __float2half(0.0f);
      ((a_smem + a_dst) + ((k * 4) * 40))[7] = __float2half(0.0f);
    }
  }
  int b_dst = ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8));
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rk_1 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
    if (((rn < mf_N) & t_14)) {
      ((b_smem + b_dst) + ((k * 2) * 72))[0] = ((b_ptr + (rk_1 * mf_N)) + rn)[0];
      ((b_smem + b_dst) + ((k * 2) * 72))[1] = ((b_ptr + (rk_1 * mf_N)) + rn)[1];
      ((b_smem + b_dst) + ((k * 2) * 72))[2] = ((b_ptr + (rk_1 * mf_N)) + rn)[2];
      ((b_smem + b_dst) + ((k * 2) * 72))[3] = ((b_ptr + (rk_1 * mf_N)) + rn)[3];
      ((b_smem + b_dst) + ((k * 2) * 72))[4] = ((b_ptr + (rk_1 * mf_N)) + rn)[4];
      ((b_smem + b_dst) + ((k * 2) * 72))[5] = ((b_ptr + (rk_1 * mf_N)) + rn)[5];
      ((b_smem + b_dst) + ((k * 2) * 72))[6] = ((b_ptr + (rk_1 * mf_N)) + rn)[6];
      ((b_smem + b_dst) + ((k * 2) * 72))[7] = ((b_ptr + (rk_1 * mf_N)) + rn)[7];
    } else {
      ((b_smem + b_dst) + ((k * 2) * 72))[0] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[1] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[2] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[3] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[4] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[5] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[6] = __float2half(0.0f);
      ((b_smem + b_dst) + ((k * 2) * 72))[7] = __float2half(0.0f);
    }
  }
  mf_cp_async_commit();
  int stage = 0;
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    int k0_next = (k0 + 32);
    bool t_18 = (k0_next < mf_K);
    // 75: rk = k0 + tl.arange(0, BLOCK_K)
    // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    mf_cp_async_wait<0>();
    __syncthreads();
    int a_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2560) + ((((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4)) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)));
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int rm = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
      int rk_2 = ((int(threadIdx.x % 32u) % 4) * 8);
      if (((rm < mf_M) & t_18)) {
        ((a_smem + a_dst_1) + ((k * 4) * 40))[0] = ((a_ptr_k + (rm * mf_K)) + rk_2)[0];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[1] = ((a_ptr_k + (rm * mf_K)) + rk_2)[1];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[2] = ((a_ptr_k + (rm * mf_K)) + rk_2)[2];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[3] = ((a_ptr_k + (rm * mf_K)) + rk_2)[3];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[4] = ((a_ptr_k + (rm * mf_K)) + rk_2)[4];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[5] = ((a_ptr_k + (rm * mf_K)) + rk_2)[5];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[6] = ((a_ptr_k + (rm * mf_K)) + rk_2)[6];
        ((a_smem + a_dst_1) + ((k * 4) * 40))[7] = ((a_ptr_k + (rm * mf_K)) + rk_2)[7];
      } else {
        ((a_smem + a_dst_1) + ((k * 4) * 40))[0] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[1] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[2] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[3] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[4] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[5] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[6] = __float2half(0.0f);
        ((a_smem + a_dst_1) + ((k * 4) * 40))[7] = __float2half(0.0f);
      }
    }
    decltype(a_ptr) a_ptr_next = (a_ptr_k + t_13);
    // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int k0_next_1 = (k0 + 32);
    bool t_19 = (k0_next_1 < mf_K);
    // 75: rk = k0 + tl.arange(0, BLOCK_K)
    // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int b_dst_1 = ((((stage < 1) ? (stage + 1) : (stage - 1)) * 2304) + ((((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)));
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int rk_3 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
      int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
      if (((rn < mf_N) & t_19)) {
        ((b_smem + b_dst_1) + ((k * 2) * 72))[0] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[0];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[1] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[1];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[2] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[2];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[3] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[3];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[4] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[4];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[5] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[5];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[6] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[6];
        ((b_smem + b_dst_1) + ((k * 2) * 72))[7] = ((b_ptr_k + (rk_3 * mf_N)) + rn)[7];
      } else {
        ((b_smem + b_dst_1) + ((k * 2) * 72))[0] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[1] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[2] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[3] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[4] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[5] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[6] = __float2half(0.0f);
        ((b_smem + b_dst_1) + ((k * 2) * 72))[7] = __float2half(0.0f);
      }
    }
    decltype(b_ptr) b_ptr_next = (b_ptr_k + t_17);
    // 78: acc = tl.dot(a, b, acc)
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    int a_lane = ((stage * 2560) + (((warp_row + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (((int(threadIdx.x % 32u) / 8) / 2) * 8)));
    int b_lane = ((stage * 2304) + ((((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8)) * 72) + (warp_col + (((int(threadIdx.x % 32u) / 8) / 2) * 16))));
    #pragma unroll 1
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[2];
      mf_frag<__half, 4> frag_b[4];
      #pragma unroll 1
      for (int i = 0; (i < 2); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_smem + a_lane), (((i * 32) * 40) + kk));
      }
      #pragma unroll 1
      for (int j = 0; (j < 4); j += 2) {
        mf_ldmatrix_pair<true>(frag_b[j], frag_b[(j + 1)], (b_smem + b_lane), ((kk * 72) + (j * 16)));
      }
      #pragma unroll 1
      for (int i = 0; (i < 2); i += 1) {
        #pragma unroll 1
        for (int j = 0; (j < 4); j += 1) {
          mf_mma_m16n8k16(acc[((i * 4) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    decltype(a_ptr) a_ptr_next_1;
    a_ptr_next_1 = a_ptr_next;
    decltype(b_ptr) b_ptr_next_1;
    b_ptr_next_1 = b_ptr_next;
    a_ptr_k = a_ptr_next_1;
    b_ptr_k = b_ptr_next_1;
    mf_cp_async_commit();
    stage = ((stage < 1) ? (stage + 1) : (stage - 1));
  }
  mf_cp_async_wait<0>();
  __syncthreads();
  // 79: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  __half t_20[32];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 1) {
    t_20[k] = mf_cast<__half>(acc[(k / 4)].e[(k % 4)]);
  }
  // 80: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 79: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 2) {
    *reinterpret_cast<mf_vec<2, __half>*>((t_21_smem + ((((((((k / 4) / 4) * 2) + (int(threadIdx.x / 32u) / 2)) * 16) + ((int(threadIdx.x % 32u) / 4) + ((k % 4) * 4))) * 72) + ((((((k / 4) % 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + ((int(threadIdx.x % 32u) % 4) * 2))))) = mf_vec<2, __half>{{t_20[k], t_20[(k + 1)]}};
  }
  __syncthreads();
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 8) {
    __half run[8];
    {
      const mf_vec<8, __half> mf_v = *reinterpret_cast<const mf_vec<8, __half>*>((t_21_smem + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8))));
      run[0] = mf_v.v[0];
      run[1] = mf_v.v[1];
      run[2] = mf_v.v[2];
      run[3] = mf_v.v[3];
      run[4] = mf_v.v[4];
      run[5] = mf_v.v[5];
      run[6] = mf_v.v[6];
      run[7] = mf_v.v[7];
    }
    int rm = (t_9 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
    int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
    if (((rm < mf_M) & (rn < mf_N))) {
      ((c_ptr + (rm * mf_N)) + rn)[0] = run[0];
      ((c_ptr + (rm * mf_N)) + rn)[1] = run[1];
      ((c_ptr + (rm * mf_N)) + rn)[2] = run[2];
      ((c_ptr + (rm * mf_N)) + rn)[3] = run[3];
      ((c_ptr + (rm * mf_N)) + rn)[4] = run[4];
      ((c_ptr + (rm * mf_N)) + rn)[5] = run[5];
      ((c_ptr + (rm * mf_N)) + rn)[6] = run[6];
      ((c_ptr + (rm * mf_N)) + rn)[7] = run[7];
    }
  }
}
