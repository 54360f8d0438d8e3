
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
template <typename T> __device__ __forceinline__ T mf_min(T a, T b) { return b < a ? b : a; }

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_M = M[0];
const auto mf_N = N[0];
const auto mf_K = K[0];
__half* a_2_smem = reinterpret_cast<__half*>(mf_shared + 0);
__half* b_2_smem = reinterpret_cast<__half*>(mf_shared + 10240);
if ((mf_is_aligned(a_ptr, 16) && mf_is_aligned(b_ptr, 16))) {
  // 56: pid = tl.program_id(0)
  // 57: num_pid_m = tl.cdiv(M, BLOCK_M)
  int t = (mf_M + 64);
  int t_1 = (t - 1);
  int num_pid_m = (t_1 / 64);
  // 58: num_pid_n = tl.cdiv(N, BLOCK_N)
  int t_2 = (mf_N + 64);
  int t_3 = (t_2 - 1);
  int num_pid_n = (t_3 / 64);
  // 59: num_pid_in_group = GROUP_M * num_pid_n
  int num_pid_in_group = (8 * num_pid_n);
  // 60: first_pid_m = (pid // num_pid_in_group) * GROUP_M
  int t_4 = (int(blockIdx.x) / num_pid_in_group);
  int first_pid_m = (t_4 * 8);
  // 61: group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may have fewer tile rows
  int t_5 = (num_pid_m - first_pid_m);
  int group_size_m = mf_min<int>(t_5, 8);
  // 62: pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
  int t_6 = (int(blockIdx.x) % num_pid_in_group);
  int t_7 = (t_6 % group_size_m);
  int pid_m = (first_pid_m + t_7);
  // 63: pid_n = (pid % num_pid_in_group) // group_size_m
  int t_8 = (int(blockIdx.x) % num_pid_in_group);
  int pid_n = (t_8 / group_size_m);
  // 64: rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
  int t_9 = (pid_m * 64);
  // 65: rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
  int t_10 = (pid_n * 64);
  // 66: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 67: for k0 in range(0, K, BLOCK_K):
  // 68: rk = k0 + tl.arange(0, BLOCK_K)
  // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  // 67: for k0 in range(0, K, BLOCK_K):
  bool t_11 = (0 < mf_K);
  // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  __half a[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rm = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
    int rk = ((int(threadIdx.x % 32u) % 4) * 8);
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, ((a_ptr + (rm * mf_K)) + rk), (((rm < mf_M) & (rk < mf_K)) & t_11));
      a[k] = mf_v.v[0];
      a[(k + 1)] = mf_v.v[1];
      a[(k + 2)] = mf_v.v[2];
      a[(k + 3)] = mf_v.v[3];
      a[(k + 4)] = mf_v.v[4];
      a[(k + 5)] = mf_v.v[5];
      a[(k + 6)] = mf_v.v[6];
      a[(k + 7)] = mf_v.v[7];
    }
  }
  // 68: rk = k0 + tl.arange(0, BLOCK_K)
  // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  // 67: for k0 in range(0, K, BLOCK_K):
  bool t_12 = (0 < mf_K);
  // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  __half b[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 8) {
    int rk_1 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
    {
      mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
      mf_load_masked(mf_v, ((b_ptr + (rk_1 * mf_N)) + rn), (((rk_1 < mf_K) & (rn < mf_N)) & t_12));
      b[k] = mf_v.v[0];
      b[(k + 1)] = mf_v.v[1];
      b[(k + 2)] = mf_v.v[2];
      b[(k + 3)] = mf_v.v[3];
      b[(k + 4)] = mf_v.v[4];
      b[(k + 5)] = mf_v.v[5];
      b[(k + 6)] = mf_v.v[6];
      b[(k + 7)] = mf_v.v[7];
    }
  }
  // 67: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> acc[8];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    float acc_1 = 0.0f;
    acc[(k / 4)].e[(k % 4)] = acc_1;
  }
  __half t_13[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_13[k] = a[k];
  }
  __half t_14[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_14[k] = b[k];
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    int k0_next = (k0 + 32);
    // 68: rk = k0 + tl.arange(0, BLOCK_K)
    // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    bool t_15 = (k0_next < mf_K);
    int rm = t_9;
    __half a_1[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int rm_1 = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
      int rk_3 = (k0_next + ((int(threadIdx.x % 32u) % 4) * 8));
      {
        mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
        mf_load_masked(mf_v, ((a_ptr + (rm_1 * mf_K)) + rk_3), (((rm_1 < mf_M) & (rk_3 < mf_K)) & t_15));
        a_1[k] = mf_v.v[0];
        a_1[(k + 1)] = mf_v.v[1];
        a_1[(k + 2)] = mf_v.v[2];
        a_1[(k + 3)] = mf_v.v[3];
        a_1[(k + 4)] = mf_v.v[4];
        a_1[(k + 5)] = mf_v.v[5];
        a_1[(k + 6)] = mf_v.v[6];
        a_1[(k + 7)] = mf_v.v[7];
      }
    }
    // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int k0_next_1 = (k0 + 32);
    // 68: rk = k0 + tl.arange(0, BLOCK_K)
    // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    bool t_16 = (k0_next_1 < mf_K);
    int rn = t_10;
    __half b_1[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      int rk_5 = (k0_next_1 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
      int rn_1 = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
      {
        mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
        mf_load_masked(mf_v, ((b_ptr + (rk_5 * mf_N)) + rn_1), (((rk_5 < mf_K) & (rn_1 < mf_N)) & t_16));
        b_1[k] = mf_v.v[0];
        b_1[(k + 1)] = mf_v.v[1];
        b_1[(k + 2)] = mf_v.v[2];
        b_1[(k + 3)] = mf_v.v[3];
        b_1[(k + 4)] = mf_v.v[4];
        b_1[(k + 5)] = mf_v.v[5];
        b_1[(k + 6)] = mf_v.v[6];
        b_1[(k + 7)] = mf_v.v[7];
      }
    }
    // 71: acc = tl.dot(a, b, acc)
    int stage = ((k0 / 32) % 2);
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      mf_store_vec<8>((a_2_smem + ((stage * 2560) + ((((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))), t_13[k], t_13[(k + 1)], t_13[(k + 2)], t_13[(k + 3)], t_13[(k + 4)], t_13[(k + 5)], t_13[(k + 6)], t_13[(k + 7)]);
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 8) {
      mf_store_vec<8>((b_2_smem + ((stage * 2304) + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)))), t_14[k], t_14[(k + 1)], t_14[(k + 2)], t_14[(k + 3)], t_14[(k + 4)], t_14[(k + 5)], t_14[(k + 6)], t_14[(k + 7)]);
    }
    __syncthreads();
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    #pragma unroll
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[2];
      mf_frag<__half, 4> frag_b[4];
      #pragma unroll
      for (int i = 0; (i < 2); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_2_smem + ((stage * 2560) + ((((warp_row + (i * 32)) + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (kk + (((int(threadIdx.x % 32u) / 8) / 2) * 8))))));
      }
      #pragma unroll
      for (int j = 0; (j < 4); j += 1) {
        mf_ldmatrix<2, true>(frag_b[j], (b_2_smem + ((stage * 2304) + (((kk + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 72) + (warp_col + (j * 16))))));
      }
      #pragma unroll
      for (int i = 0; (i < 2); i += 1) {
        #pragma unroll
        for (int j = 0; (j < 4); j += 1) {
          mf_mma_m16n8k16(acc[((i * 4) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    __half a_3[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      a_3[k] = a_1[k];
    }
    __half b_3[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      b_3[k] = b_1[k];
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_13[k] = a_3[k];
    }
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_14[k] = b_3[k];
    }
  }
  // 72: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  __half t_17[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    t_17[k] = mf_cast<__half>(acc[(k / 4)].e[(k % 4)]);
  }
  // 73: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 72: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    int rm = (t_9 + ((((((k / 4) / 4) * 2) + (int(threadIdx.x / 32u) / 2)) * 16) + ((int(threadIdx.x % 32u) / 4) + (((k % 4) / 2) * 8))));
    int rn = (t_10 + ((((((k / 4) % 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
    if (((rm < mf_M) & (rn < mf_N))) {
      *(((c_ptr + (rm * mf_N)) + rn)) = t_17[k];
    }
  }
} else {
  // 56: pid = tl.program_id(0)
  // 57: num_pid_m = tl.cdiv(M, BLOCK_M)
  int t = (mf_M + 64);
  int t_1 = (t - 1);
  int num_pid_m = (t_1 / 64);
  // 58: num_pid_n = tl.cdiv(N, BLOCK_N)
  int t_2 = (mf_N + 64);
  int t_3 = (t_2 - 1);
  int num_pid_n = (t_3 / 64);
  // 59: num_pid_in_group = GROUP_M * num_pid_n
  int num_pid_in_group = (8 * num_pid_n);
  // 60: first_pid_m = (pid // num_pid_in_group) * GROUP_M
  int t_4 = (int(blockIdx.x) / num_pid_in_group);
  int first_pid_m = (t_4 * 8);
  // 61: group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may have fewer tile rows
  int t_5 = (num_pid_m - first_pid_m);
  int group_size_m = mf_min<int>(t_5, 8);
  // 62: pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
  int t_6 = (int(blockIdx.x) % num_pid_in_group);
  int t_7 = (t_6 % group_size_m);
  int pid_m = (first_pid_m + t_7);
  // 63: pid_n = (pid % num_pid_in_group) // group_size_m
  int t_8 = (int(blockIdx.x) % num_pid_in_group);
  int pid_n = (t_8 / group_size_m);
  // 64: rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
  int t_9 = (pid_m * 64);
  // 65: rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
  int t_10 = (pid_n * 64);
  // 66: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
  // 67: for k0 in range(0, K, BLOCK_K):
  // 68: rk = k0 + tl.arange(0, BLOCK_K)
  // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  // 67: for k0 in range(0, K, BLOCK_K):
  bool t_11 = (0 < mf_K);
  // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  __half a[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rm = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
    int rk = ((int(threadIdx.x % 32u) % 4) * 8);
    if ((((rm < mf_M) & (rk < mf_K)) & t_11)) {
      a[k] = ((a_ptr + (rm * mf_K)) + rk)[0];
      a[(k + 1)] = ((a_ptr + (rm * mf_K)) + rk)[1];
      a[(k + 2)] = ((a_ptr + (rm * mf_K)) + rk)[2];
      a[(k + 3)] = ((a_ptr + (rm * mf_K)) + rk)[3];
      a[(k + 4)] = ((a_ptr + (rm * mf_K)) + rk)[4];
      a[(k + 5)] = ((a_ptr + (rm * mf_K)) + rk)[5];
      a[(k + 6)] = ((a_ptr + (rm * mf_K)) + rk)[6];
      a[(k + 7)] = ((a_ptr + (rm * mf_K)) + rk)[7];
    } else {
      a[k] = __float2half(0.0f);
      a[(k + 1)] = __float2half(0.0f);
      a[(k + 2)] = __float2half(0.0f);
      a[(k + 3)] = __float2half(0.0f);
      a[(k + 4)] = __float2half(0.0f);
      a[(k + 5)] = __float2half(0.0f);
      a[(k + 6)] = __float2half(0.0f);
      a[(k + 7)] = __float2half(0.0f);
    }
  }
  // 68: rk = k0 + tl.arange(0, BLOCK_K)
  // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  // 67: for k0 in range(0, K, BLOCK_K):
  bool t_12 = (0 < mf_K);
  // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  __half b[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 8) {
    int rk_1 = ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8)));
    int rn = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
    if ((((rk_1 < mf_K) & (rn < mf_N)) & t_12)) {
      b[k] = ((b_ptr + (rk_1 * mf_N)) + rn)[0];
      b[(k + 1)] = ((b_ptr + (rk_1 * mf_N)) + rn)[1];
      b[(k + 2)] = ((b_ptr + (rk_1 * mf_N)) + rn)[2];
      b[(k + 3)] = ((b_ptr + (rk_1 * mf_N)) + rn)[3];
      b[(k + 4)] = ((b_ptr + (rk_1 * mf_N)) + rn)[4];
      b[(k + 5)] = ((b_ptr + (rk_1 * mf_N)) + rn)[5];
      b[(k + 6)] = ((b_ptr + (rk_1 * mf_N)) + rn)[6];
      b[(k + 7)] = ((b_ptr + (rk_1 * mf_N)) + rn)[7];
    } else {
      b[k] = __float2half(0.0f);
      b[(k + 1)] = __float2half(0.0f);
      b[(k + 2)] = __float2half(0.0f);
      b[(k + 3)] = __float2half(0.0f);
      b[(k + 4)] = __float2half(0.0f);
      b[(k + 5)] = __float2half(0.0f);
      b[(k + 6)] = __float2half(0.0f);
      b[(k + 7)] = __float2half(0.0f);
    }
  }
  // 67: for k0 in range(0, K, BLOCK_K):
  mf_frag<float, 4> acc[8];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 1) {
    float acc_1 = 0.0f;
    acc[(k / 4)].e[(k % 4)] = acc_1;
  }
  __half t_13[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_13[k] = a[k];
  }
  __half t_14[16];
  #pragma unroll 1
  for (int k = 0; (k < 16); k += 1) {
    t_14[k] = b[k];
  }
  for (int k0 = 0; (k0 < mf_K); k0 += 32) {
    // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    int k0_next = (k0 + 32);
    // 68: rk = k0 + tl.arange(0, BLOCK_K)
    // 69: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    bool t_15 = (k0_next < mf_K);
    int rm = t_9;
    __half a_1[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int rm_1 = (t_9 + ((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))));
      int rk_3 = (k0_next + ((int(threadIdx.x % 32u) % 4) * 8));
      if ((((rm_1 < mf_M) & (rk_3 < mf_K)) & t_15)) {
        a_1[k] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[0];
        a_1[(k + 1)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[1];
        a_1[(k + 2)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[2];
        a_1[(k + 3)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[3];
        a_1[(k + 4)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[4];
        a_1[(k + 5)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[5];
        a_1[(k + 6)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[6];
        a_1[(k + 7)] = ((a_ptr + (rm_1 * mf_K)) + rk_3)[7];
      } else {
        a_1[k] = __float2half(0.0f);
        a_1[(k + 1)] = __float2half(0.0f);
        a_1[(k + 2)] = __float2half(0.0f);
        a_1[(k + 3)] = __float2half(0.0f);
        a_1[(k + 4)] = __float2half(0.0f);
        a_1[(k + 5)] = __float2half(0.0f);
        a_1[(k + 6)] = __float2half(0.0f);
        a_1[(k + 7)] = __float2half(0.0f);
      }
    }
    // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int k0_next_1 = (k0 + 32);
    // 68: rk = k0 + tl.arange(0, BLOCK_K)
    // 70: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    bool t_16 = (k0_next_1 < mf_K);
    int rn = t_10;
    __half b_1[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      int rk_5 = (k0_next_1 + ((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))));
      int rn_1 = (t_10 + ((int(threadIdx.x % 32u) % 8) * 8));
      if ((((rk_5 < mf_K) & (rn_1 < mf_N)) & t_16)) {
        b_1[k] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[0];
        b_1[(k + 1)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[1];
        b_1[(k + 2)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[2];
        b_1[(k + 3)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[3];
        b_1[(k + 4)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[4];
        b_1[(k + 5)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[5];
        b_1[(k + 6)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[6];
        b_1[(k + 7)] = ((b_ptr + (rk_5 * mf_N)) + rn_1)[7];
      } else {
        b_1[k] = __float2half(0.0f);
        b_1[(k + 1)] = __float2half(0.0f);
        b_1[(k + 2)] = __float2half(0.0f);
        b_1[(k + 3)] = __float2half(0.0f);
        b_1[(k + 4)] = __float2half(0.0f);
        b_1[(k + 5)] = __float2half(0.0f);
        b_1[(k + 6)] = __float2half(0.0f);
        b_1[(k + 7)] = __float2half(0.0f);
      }
    }
    // 71: acc = tl.dot(a, b, acc)
    int stage = ((k0 / 32) % 2);
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      mf_store_vec<8>((a_2_smem + ((stage * 2560) + ((((k * 4) + ((int(threadIdx.x / 32u) * 8) + (int(threadIdx.x % 32u) / 4))) * 40) + ((int(threadIdx.x % 32u) % 4) * 8)))), t_13[k], t_13[(k + 1)], t_13[(k + 2)], t_13[(k + 3)], t_13[(k + 4)], t_13[(k + 5)], t_13[(k + 6)], t_13[(k + 7)]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 8) {
      mf_store_vec<8>((b_2_smem + ((stage * 2304) + ((((k * 2) + ((int(threadIdx.x / 32u) * 4) + (int(threadIdx.x % 32u) / 8))) * 72) + ((int(threadIdx.x % 32u) % 8) * 8)))), t_14[k], t_14[(k + 1)], t_14[(k + 2)], t_14[(k + 3)], t_14[(k + 4)], t_14[(k + 5)], t_14[(k + 6)], t_14[(k + 7)]);
    }
    __syncthreads();
    int warp_row = ((int(threadIdx.x / 32u) / 2) * 16);
    int warp_col = ((int(threadIdx.x / 32u) % 2) * 8);
    #pragma unroll 1
    for (int kk = 0; (kk < 32); kk += 16) {
      mf_frag<__half, 8> frag_a[2];
      mf_frag<__half, 4> frag_b[4];
      #pragma unroll 1
      for (int i = 0; (i < 2); i += 1) {
        mf_ldmatrix<4, false>(frag_a[i], (a_2_smem + ((stage * 2560) + ((((warp_row + (i * 32)) + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 40) + (kk + (((int(threadIdx.x % 32u) / 8) / 2) * 8))))));
      }
      #pragma unroll 1
      for (int j = 0; (j < 4); j += 1) {
        mf_ldmatrix<2, true>(frag_b[j], (b_2_smem + ((stage * 2304) + (((kk + ((((int(threadIdx.x % 32u) / 8) % 2) * 8) + (int(threadIdx.x % 32u) % 8))) * 72) + (warp_col + (j * 16))))));
      }
      #pragma unroll 1
      for (int i = 0; (i < 2); i += 1) {
        #pragma unroll 1
        for (int j = 0; (j < 4); j += 1) {
          mf_mma_m16n8k16(acc[((i * 4) + j)], frag_a[i], frag_b[j]);
        }
      }
    }
    __half a_3[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      a_3[k] = a_1[k];
    }
    __half b_3[16];
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      b_3[k] = b_1[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_13[k] = a_3[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 16); k += 1) {
      t_14[k] = b_3[k];
    }
  }
  // 72: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  __half t_17[32];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 1) {
    t_17[k] = mf_cast<__half>(acc[(k / 4)].e[(k % 4)]);
  }
  // 73: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 72: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 1) {
    int rm = (t_9 + ((((((k / 4) / 4) * 2) + (int(threadIdx.x / 32u) / 2)) * 16) + ((int(threadIdx.x % 32u) / 4) + (((k % 4) / 2) * 8))));
    int rn = (t_10 + ((((((k / 4) % 4) * 2) + (int(threadIdx.x / 32u) % 2)) * 8) + (((int(threadIdx.x % 32u) % 4) * 2) + ((k % 4) % 2))));
    if (((rm < mf_M) & (rn < mf_N))) {
      *(((c_ptr + (rm * mf_N)) + rn)) = t_17[k];
    }
  }
}
