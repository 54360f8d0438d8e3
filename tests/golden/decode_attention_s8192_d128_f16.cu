
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
// Triton's fp32 math: the hardware approximations its PTX uses (ex2.approx, sqrt.approx, div.full);
// exp2 flushes results below 2^-126 to zero as Metal's fast math does (.ftz: one instruction, where
// keeping them costs a compare and two predicated multiplies around it).
__device__ __forceinline__ float mf_exp2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
template <typename T> __device__ __forceinline__ T mf_min(T a, T b) { return b < a ? b : a; }

extern __shared__ __align__(16) unsigned char mf_shared[];
const auto mf_S = S[0];
const auto mf_SPLIT = SPLIT[0];
const auto mf_KV_SPARE = KV_SPARE[0];
const auto mf_scale = scale[0];
float* q_1_smem = reinterpret_cast<float*>(mf_shared + 0);
float* m_smem = reinterpret_cast<float*>(mf_shared + 512);
float* acc_5_smem = reinterpret_cast<float*>(mf_shared + 528);
float* l_i_4_smem = reinterpret_cast<float*>(mf_shared + 2576);
if ((mf_is_aligned(k_ptr, 16) && mf_is_aligned(v_ptr, 16))) {
  // 103: head = tl.program_id(0)
  // 104: split = tl.program_id(1)
  // 105: part = head * tl.num_programs(1) + split
  int t = (int(blockIdx.x) * int(gridDim.y));
  int part = (t + int(blockIdx.y));
  // 106: kv_head = head // GROUP
  int kv_head = (int(blockIdx.x) / 4);
  // 107: d = tl.arange(0, D)
  // 108: q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale
  int t_1 = (int(blockIdx.x) * 128);
  decltype(q_ptr) t_2 = (q_ptr + t_1);
  __half t_3[1];
  t_3[0] = (t_2 + int(threadIdx.x))[0];
  float t_4[1];
  t_4[0] = static_cast<float>(t_3[0]);
  float q[1];
  q[0] = (t_4[0] * mf_scale);
  // 109: m_i = tl.full((BLOCK_N,), -float("inf"), tl.float32)
  // 110: l_i = tl.zeros((BLOCK_N,), dtype=tl.float32)
  // 111: acc = tl.zeros((BLOCK_N, D), dtype=tl.float32)
  // 112: lo = split * SPLIT
  int lo = (int(blockIdx.y) * mf_SPLIT);
  // 113: hi = tl.minimum(lo + SPLIT, S)
  int t_5 = (lo + mf_SPLIT);
  int hi = mf_min<int>(t_5, mf_S);
  // 114: first_key = kv_head * (S + KV_SPARE)  # the head's first key slot
  int t_6 = (mf_S + mf_KV_SPARE);
  int first_key = (kv_head * t_6);
  // 115: for start in range(lo, hi, BLOCK_N):
  float acc[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  float l_i[8];
  float m_i[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float l_i_1 = 0.0f;
    l_i[k] = l_i_1;
    float m_i_1 = __uint_as_float(0xff800000u);
    m_i[k] = m_i_1;
  }
  __syncthreads();
  q_1_smem[int(threadIdx.x)] = q[0];
  __syncthreads();
  for (int start = lo; (start < hi); start += 64) {
    // 116: n = start + tl.arange(0, BLOCK_N)
    // 117: valid = n < hi
    // 118: offs = (first_key + n)[:, None] * D + d[None, :]
    // 119: k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
    int d = 0;
    float t_8[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 8) {
      int n_1 = (start + (k + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int d_1 = ((int(threadIdx.x % 32u) % 16) * 8);
      int offs_1 = (((first_key + n_1) * 128) + d_1);
      bool valid_1 = (n_1 < hi);
      __half t_7_0;
      __half t_7_1;
      __half t_7_2;
      __half t_7_3;
      __half t_7_4;
      __half t_7_5;
      __half t_7_6;
      __half t_7_7;
      {
        mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
        mf_load_masked(mf_v, (k_ptr + offs_1), valid_1);
        t_7_0 = mf_v.v[0];
        t_7_1 = mf_v.v[1];
        t_7_2 = mf_v.v[2];
        t_7_3 = mf_v.v[3];
        t_7_4 = mf_v.v[4];
        t_7_5 = mf_v.v[5];
        t_7_6 = mf_v.v[6];
        t_7_7 = mf_v.v[7];
      }
      float k_1_0 = static_cast<float>(t_7_0);
      float k_1_1 = static_cast<float>(t_7_1);
      float k_1_2 = static_cast<float>(t_7_2);
      float k_1_3 = static_cast<float>(t_7_3);
      float k_1_4 = static_cast<float>(t_7_4);
      float k_1_5 = static_cast<float>(t_7_5);
      float k_1_6 = static_cast<float>(t_7_6);
      float k_1_7 = static_cast<float>(t_7_7);
      // 120: scores = tl.where(valid, tl.sum(k * q[None, :], axis=1), -float("inf"))
      t_8[k] = (k_1_0 * q_1_smem[((int(threadIdx.x % 32u) % 16) * 8)]);
      t_8[(k + 1)] = (k_1_1 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 1)]);
      t_8[(k + 2)] = (k_1_2 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 2)]);
      t_8[(k + 3)] = (k_1_3 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 3)]);
      t_8[(k + 4)] = (k_1_4 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 4)]);
      t_8[(k + 5)] = (k_1_5 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 5)]);
      t_8[(k + 6)] = (k_1_6 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 6)]);
      t_8[(k + 7)] = (k_1_7 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 7)]);
    }
    float acc_2[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      acc_2[k] = t_8[(k * 8)];
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 1)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 2)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 3)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 4)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 5)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 6)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 7)]);
    }
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float partner = __shfl_xor_sync(0xffffffffu, acc_2[k], 1);
      acc_2[k] = (acc_2[k] + partner);
    }
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float partner_1 = __shfl_xor_sync(0xffffffffu, acc_2[k], 2);
      acc_2[k] = (acc_2[k] + partner_1);
    }
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float partner_2 = __shfl_xor_sync(0xffffffffu, acc_2[k], 4);
      acc_2[k] = (acc_2[k] + partner_2);
    }
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float partner_3 = __shfl_xor_sync(0xffffffffu, acc_2[k], 8);
      acc_2[k] = (acc_2[k] + partner_3);
    }
    float m_new[8];
    float alpha[8];
    float p[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      int n_2 = (start + ((k * 8) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      bool valid_2 = (n_2 < hi);
      float scores = (valid_2 ? acc_2[k] : __uint_as_float(0xff800000u));
      // 121: m_new = tl.maximum(m_i, scores)
      m_new[k] = fmaxf(m_i[k], scores);
      // 123: alpha = tl.where(m_new == m_i, 1.0, tl.exp(m_i - m_new))
      bool t_9 = (m_new[k] == m_i[k]);
      float t_10 = mf_exp2(fmaf(m_i[k], 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
      alpha[k] = (t_9 ? 1.0f : t_10);
      // 124: p = tl.where(valid, tl.exp(scores - m_new), 0.0)
      float t_11 = mf_exp2(fmaf(scores, 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
      int n_3 = (start + ((k * 8) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      bool valid_3 = (n_3 < hi);
      p[k] = (valid_3 ? t_11 : 0.0f);
    }
    // 125: v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
    float acc_3[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 8) {
      int n_4 = (start + (k + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int d_2 = ((int(threadIdx.x % 32u) % 16) * 8);
      int offs_2 = (((first_key + n_4) * 128) + d_2);
      bool valid_4 = (n_4 < hi);
      __half t_12_0;
      __half t_12_1;
      __half t_12_2;
      __half t_12_3;
      __half t_12_4;
      __half t_12_5;
      __half t_12_6;
      __half t_12_7;
      {
        mf_vec<8, __half> mf_v{{__float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f), __float2half(0.0f)}};
        mf_load_masked(mf_v, (v_ptr + offs_2), valid_4);
        t_12_0 = mf_v.v[0];
        t_12_1 = mf_v.v[1];
        t_12_2 = mf_v.v[2];
        t_12_3 = mf_v.v[3];
        t_12_4 = mf_v.v[4];
        t_12_5 = mf_v.v[5];
        t_12_6 = mf_v.v[6];
        t_12_7 = mf_v.v[7];
      }
      float v_0 = static_cast<float>(t_12_0);
      float v_1 = static_cast<float>(t_12_1);
      float v_2 = static_cast<float>(t_12_2);
      float v_3 = static_cast<float>(t_12_3);
      float v_4 = static_cast<float>(t_12_4);
      float v_5 = static_cast<float>(t_12_5);
      float v_6 = static_cast<float>(t_12_6);
      float v_7 = static_cast<float>(t_12_7);
      // 126: acc = acc * alpha[:, None] + p[:, None] * v
      float t_13_0 = (acc[k] * alpha[(k / 8)]);
      float t_13_1 = (acc[(k + 1)] * alpha[(k / 8)]);
      float t_13_2 = (acc[(k + 2)] * alpha[(k / 8)]);
      float t_13_3 = (acc[(k + 3)] * alpha[(k / 8)]);
      float t_13_4 = (acc[(k + 4)] * alpha[(k / 8)]);
      float t_13_5 = (acc[(k + 5)] * alpha[(k / 8)]);
      float t_13_6 = (acc[(k + 6)] * alpha[(k / 8)]);
      float t_13_7 = (acc[(k + 7)] * alpha[(k / 8)]);
      float t_14_0 = (p[(k / 8)] * v_0);
      float t_14_1 = (p[(k / 8)] * v_1);
      float t_14_2 = (p[(k / 8)] * v_2);
      float t_14_3 = (p[(k / 8)] * v_3);
      float t_14_4 = (p[(k / 8)] * v_4);
      float t_14_5 = (p[(k / 8)] * v_5);
      float t_14_6 = (p[(k / 8)] * v_6);
      float t_14_7 = (p[(k / 8)] * v_7);
      acc_3[k] = (t_13_0 + t_14_0);
      acc_3[(k + 1)] = (t_13_1 + t_14_1);
      acc_3[(k + 2)] = (t_13_2 + t_14_2);
      acc_3[(k + 3)] = (t_13_3 + t_14_3);
      acc_3[(k + 4)] = (t_13_4 + t_14_4);
      acc_3[(k + 5)] = (t_13_5 + t_14_5);
      acc_3[(k + 6)] = (t_13_6 + t_14_6);
      acc_3[(k + 7)] = (t_13_7 + t_14_7);
    }
    // 127: l_i = l_i * alpha + p
    float l_i_2[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      float t_15 = (l_i[k] * alpha[k]);
      l_i_2[k] = (t_15 + p[k]);
    }
    float acc_4[64];
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      acc_4[k] = acc_3[k];
    }
    float l_i_3[8];
    float m_new_1[8];
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      l_i_3[k] = l_i_2[k];
      m_new_1[k] = m_new[k];
    }
    #pragma unroll
    for (int k = 0; (k < 64); k += 1) {
      acc[k] = acc_4[k];
    }
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      l_i[k] = l_i_3[k];
      m_i[k] = m_new_1[k];
    }
  }
  // 129: m = tl.max(m_i, axis=0)
  float m[1];
  m[0] = m_i[0];
  m[0] = fmaxf(m[0], m_i[1]);
  m[0] = fmaxf(m[0], m_i[2]);
  m[0] = fmaxf(m[0], m_i[3]);
  m[0] = fmaxf(m[0], m_i[4]);
  m[0] = fmaxf(m[0], m_i[5]);
  m[0] = fmaxf(m[0], m_i[6]);
  m[0] = fmaxf(m[0], m_i[7]);
  float partner_4 = __shfl_xor_sync(0xffffffffu, m[0], 16);
  m[0] = fmaxf(m[0], partner_4);
  __syncthreads();
  if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) < 4))) {
    m_smem[int(threadIdx.x / 32u)] = m[0];
  }
  __syncthreads();
  m[0] = m_smem[0];
  m[0] = fmaxf(m[0], m_smem[1]);
  m[0] = fmaxf(m[0], m_smem[2]);
  m[0] = fmaxf(m[0], m_smem[3]);
  float m_1 = m[0];
  // 130: w = tl.where(m_i == m, 1.0, tl.exp(m_i - m))  # slots without keys (-inf) weigh 0
  float w[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    bool t_16 = (m_i[k] == m_1);
    float t_17 = mf_exp2(fmaf(m_i[k], 1.4426950408889634f, (-(m_1 * 1.4426950408889634f))));
    w[k] = (t_16 ? 1.0f : t_17);
  }
  // 131: acc = tl.sum(acc * w[:, None], axis=0)
  float t_18[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    t_18[k] = (acc[k] * w[(k / 8)]);
  }
  float acc_5[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    acc_5[k] = t_18[k];
    acc_5[k] = (acc_5[k] + t_18[(8 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(16 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(24 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(32 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(40 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(48 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(56 + k)]);
  }
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float partner_5 = __shfl_xor_sync(0xffffffffu, acc_5[k], 16);
    acc_5[k] = (acc_5[k] + partner_5);
  }
  __syncthreads();
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) < 4))) {
      acc_5_smem[((int(threadIdx.x / 32u) * 128) + (((int(threadIdx.x % 32u) % 16) * 8) + k))] = acc_5[k];
    }
  }
  __syncthreads();
  float t_19[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    acc_5[k] = acc_5_smem[(((int(threadIdx.x % 32u) % 16) * 8) + k)];
    acc_5[k] = (acc_5[k] + acc_5_smem[(128 + (((int(threadIdx.x % 32u) % 16) * 8) + k))]);
    acc_5[k] = (acc_5[k] + acc_5_smem[(256 + (((int(threadIdx.x % 32u) % 16) * 8) + k))]);
    acc_5[k] = (acc_5[k] + acc_5_smem[(384 + (((int(threadIdx.x % 32u) % 16) * 8) + k))]);
    // 132: l_i = tl.sum(l_i * w, axis=0)
    t_19[k] = (l_i[k] * w[k]);
  }
  float l_i_4[1];
  l_i_4[0] = t_19[0];
  l_i_4[0] = (l_i_4[0] + t_19[1]);
  l_i_4[0] = (l_i_4[0] + t_19[2]);
  l_i_4[0] = (l_i_4[0] + t_19[3]);
  l_i_4[0] = (l_i_4[0] + t_19[4]);
  l_i_4[0] = (l_i_4[0] + t_19[5]);
  l_i_4[0] = (l_i_4[0] + t_19[6]);
  l_i_4[0] = (l_i_4[0] + t_19[7]);
  float partner_6 = __shfl_xor_sync(0xffffffffu, l_i_4[0], 16);
  l_i_4[0] = (l_i_4[0] + partner_6);
  __syncthreads();
  if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) < 4))) {
    l_i_4_smem[int(threadIdx.x / 32u)] = l_i_4[0];
  }
  __syncthreads();
  l_i_4[0] = l_i_4_smem[0];
  l_i_4[0] = (l_i_4[0] + l_i_4_smem[1]);
  l_i_4[0] = (l_i_4[0] + l_i_4_smem[2]);
  l_i_4[0] = (l_i_4[0] + l_i_4_smem[3]);
  float l_i_5 = l_i_4[0];
  // 137: tl.store(o_ptr + part * D + d, acc)
  int t_20 = (part * 128);
  decltype(o_ptr) t_21 = (o_ptr + t_20);
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    int d = (((int(threadIdx.x % 32u) % 16) * 8) + k);
    if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) == 0))) {
      *((t_21 + d)) = acc_5[k];
    }
  }
  // 138: tl.store(m_ptr + part, m_i)
  decltype(m_ptr) t_22 = (m_ptr + part);
  if ((int(threadIdx.x) == 0)) {
    *(t_22) = m_1;
  }
  // 139: tl.store(l_ptr + part, l_i)
  decltype(l_ptr) t_23 = (l_ptr + part);
  if ((int(threadIdx.x) == 0)) {
    *(t_23) = l_i_5;
  }
} else {
  // 103: head = tl.program_id(0)
  // 104: split = tl.program_id(1)
  // 105: part = head * tl.num_programs(1) + split
  int t = (int(blockIdx.x) * int(gridDim.y));
  int part = (t + int(blockIdx.y));
  // 106: kv_head = head // GROUP
  int kv_head = (int(blockIdx.x) / 4);
  // 107: d = tl.arange(0, D)
  // 108: q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale
  int t_1 = (int(blockIdx.x) * 128);
  decltype(q_ptr) t_2 = (q_ptr + t_1);
  __half t_3[1];
  t_3[0] = (t_2 + int(threadIdx.x))[0];
  float t_4[1];
  t_4[0] = static_cast<float>(t_3[0]);
  float q[1];
  q[0] = (t_4[0] * mf_scale);
  // 109: m_i = tl.full((BLOCK_N,), -float("inf"), tl.float32)
  // 110: l_i = tl.zeros((BLOCK_N,), dtype=tl.float32)
  // 111: acc = tl.zeros((BLOCK_N, D), dtype=tl.float32)
  // 112: lo = split * SPLIT
  int lo = (int(blockIdx.y) * mf_SPLIT);
  // 113: hi = tl.minimum(lo + SPLIT, S)
  int t_5 = (lo + mf_SPLIT);
  int hi = mf_min<int>(t_5, mf_S);
  // 114: first_key = kv_head * (S + KV_SPARE)  # the head's first key slot
  int t_6 = (mf_S + mf_KV_SPARE);
  int first_key = (kv_head * t_6);
  // 115: for start in range(lo, hi, BLOCK_N):
  float acc[64];
  #pragma unroll 1
  for (int k = 0; (k < 64); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  float l_i[8];
  float m_i[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    float l_i_1 = 0.0f;
    l_i[k] = l_i_1;
    float m_i_1 = __uint_as_float(0xff800000u);
    m_i[k] = m_i_1;
  }
  __syncthreads();
  q_1_smem[int(threadIdx.x)] = q[0];
  __syncthreads();
  for (int start = lo; (start < hi); start += 64) {
    // 116: n = start + tl.arange(0, BLOCK_N)
    // 117: valid = n < hi
    // 118: offs = (first_key + n)[:, None] * D + d[None, :]
    // 119: k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
    int d = 0;
    float t_8[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 8) {
      int n_1 = (start + (k + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int d_1 = ((int(threadIdx.x % 32u) % 16) * 8);
      int offs_1 = (((first_key + n_1) * 128) + d_1);
      bool valid_1 = (n_1 < hi);
      __half t_7_0;
      __half t_7_1;
      __half t_7_2;
      __half t_7_3;
      __half t_7_4;
      __half t_7_5;
      __half t_7_6;
      __half t_7_7;
      if (valid_1) {
        t_7_0 = (k_ptr + offs_1)[0];
        t_7_1 = (k_ptr + offs_1)[1];
        t_7_2 = (k_ptr + offs_1)[2];
        t_7_3 = (k_ptr + offs_1)[3];
        t_7_4 = (k_ptr + offs_1)[4];
        t_7_5 = (k_ptr + offs_1)[5];
        t_7_6 = (k_ptr + offs_1)[6];
        t_7_7 = (k_ptr + offs_1)[7];
      } else {
        t_7_0 = __float2half(0.0f);
        t_7_1 = __float2half(0.0f);
        t_7_2 = __float2half(0.0f);
        t_7_3 = __float2half(0.0f);
        t_7_4 = __float2half(0.0f);
        t_7_5 = __float2half(0.0f);
        t_7_6 = __float2half(0.0f);
        t_7_7 = __float2half(0.0f);
      }
      float k_1_0 = static_cast<float>(t_7_0);
      float k_1_1 = static_cast<float>(t_7_1);
      float k_1_2 = static_cast<float>(t_7_2);
      float k_1_3 = static_cast<float>(t_7_3);
      float k_1_4 = static_cast<float>(t_7_4);
      float k_1_5 = static_cast<float>(t_7_5);
      float k_1_6 = static_cast<float>(t_7_6);
      float k_1_7 = static_cast<float>(t_7_7);
      // 120: scores = tl.where(valid, tl.sum(k * q[None, :], axis=1), -float("inf"))
      t_8[k] = (k_1_0 * q_1_smem[((int(threadIdx.x % 32u) % 16) * 8)]);
      t_8[(k + 1)] = (k_1_1 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 1)]);
      t_8[(k + 2)] = (k_1_2 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 2)]);
      t_8[(k + 3)] = (k_1_3 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 3)]);
      t_8[(k + 4)] = (k_1_4 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 4)]);
      t_8[(k + 5)] = (k_1_5 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 5)]);
      t_8[(k + 6)] = (k_1_6 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 6)]);
      t_8[(k + 7)] = (k_1_7 * q_1_smem[(((int(threadIdx.x % 32u) % 16) * 8) + 7)]);
    }
    float acc_2[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      acc_2[k] = t_8[(k * 8)];
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 1)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 2)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 3)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 4)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 5)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 6)]);
      acc_2[k] = (acc_2[k] + t_8[((k * 8) + 7)]);
    }
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float partner = __shfl_xor_sync(0xffffffffu, acc_2[k], 1);
      acc_2[k] = (acc_2[k] + partner);
    }
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float partner_1 = __shfl_xor_sync(0xffffffffu, acc_2[k], 2);
      acc_2[k] = (acc_2[k] + partner_1);
    }
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float partner_2 = __shfl_xor_sync(0xffffffffu, acc_2[k], 4);
      acc_2[k] = (acc_2[k] + partner_2);
    }
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float partner_3 = __shfl_xor_sync(0xffffffffu, acc_2[k], 8);
      acc_2[k] = (acc_2[k] + partner_3);
    }
    float m_new[8];
    float alpha[8];
    float p[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      int n_2 = (start + ((k * 8) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      bool valid_2 = (n_2 < hi);
      float scores = (valid_2 ? acc_2[k] : __uint_as_float(0xff800000u));
      // 121: m_new = tl.maximum(m_i, scores)
      m_new[k] = fmaxf(m_i[k], scores);
      // 123: alpha = tl.where(m_new == m_i, 1.0, tl.exp(m_i - m_new))
      bool t_9 = (m_new[k] == m_i[k]);
      float t_10 = mf_exp2(fmaf(m_i[k], 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
      alpha[k] = (t_9 ? 1.0f : t_10);
      // 124: p = tl.where(valid, tl.exp(scores - m_new), 0.0)
      float t_11 = mf_exp2(fmaf(scores, 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
      int n_3 = (start + ((k * 8) + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      bool valid_3 = (n_3 < hi);
      p[k] = (valid_3 ? t_11 : 0.0f);
    }
    // 125: v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
    float acc_3[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 8) {
      int n_4 = (start + (k + ((int(threadIdx.x / 32u) * 2) + (int(threadIdx.x % 32u) / 16))));
      int d_2 = ((int(threadIdx.x % 32u) % 16) * 8);
      int offs_2 = (((first_key + n_4) * 128) + d_2);
      bool valid_4 = (n_4 < hi);
      __half t_12_0;
      __half t_12_1;
      __half t_12_2;
      __half t_12_3;
      __half t_12_4;
      __half t_12_5;
      __half t_12_6;
      __half t_12_7;
      if (valid_4) {
        t_12_0 = (v_ptr + offs_2)[0];
        t_12_1 = (v_ptr + offs_2)[1];
        t_12_2 = (v_ptr + offs_2)[2];
        t_12_3 = (v_ptr + offs_2)[3];
        t_12_4 = (v_ptr + offs_2)[4];
        t_12_5 = (v_ptr + offs_2)[5];
        t_12_6 = (v_ptr + offs_2)[6];
        t_12_7 = (v_ptr + offs_2)[7];
      } else {
        t_12_0 = __float2half(0.0f);
        t_12_1 = __float2half(0.0f);
        t_12_2 = __float2half(0.0f);
        t_12_3 = __float2half(0.0f);
        t_12_4 = __float2half(0.0f);
        t_12_5 = __float2half(0.0f);
        t_12_6 = __float2half(0.0f);
        t_12_7 = __float2half(0.0f);
      }
      float v_0 = static_cast<float>(t_12_0);
      float v_1 = static_cast<float>(t_12_1);
      float v_2 = static_cast<float>(t_12_2);
      float v_3 = static_cast<float>(t_12_3);
      float v_4 = static_cast<float>(t_12_4);
      float v_5 = static_cast<float>(t_12_5);
      float v_6 = static_cast<float>(t_12_6);
      float v_7 = static_cast<float>(t_12_7);
      // 126: acc = acc * alpha[:, None] + p[:, None] * v
      float t_13_0 = (acc[k] * alpha[(k / 8)]);
      float t_13_1 = (acc[(k + 1)] * alpha[(k / 8)]);
      float t_13_2 = (acc[(k + 2)] * alpha[(k / 8)]);
      float t_13_3 = (acc[(k + 3)] * alpha[(k / 8)]);
      float t_13_4 = (acc[(k + 4)] * alpha[(k / 8)]);
      float t_13_5 = (acc[(k + 5)] * alpha[(k / 8)]);
      float t_13_6 = (acc[(k + 6)] * alpha[(k / 8)]);
      float t_13_7 = (acc[(k + 7)] * alpha[(k / 8)]);
      float t_14_0 = (p[(k / 8)] * v_0);
      float t_14_1 = (p[(k / 8)] * v_1);
      float t_14_2 = (p[(k / 8)] * v_2);
      float t_14_3 = (p[(k / 8)] * v_3);
      float t_14_4 = (p[(k / 8)] * v_4);
      float t_14_5 = (p[(k / 8)] * v_5);
      float t_14_6 = (p[(k / 8)] * v_6);
      float t_14_7 = (p[(k / 8)] * v_7);
      acc_3[k] = (t_13_0 + t_14_0);
      acc_3[(k + 1)] = (t_13_1 + t_14_1);
      acc_3[(k + 2)] = (t_13_2 + t_14_2);
      acc_3[(k + 3)] = (t_13_3 + t_14_3);
      acc_3[(k + 4)] = (t_13_4 + t_14_4);
      acc_3[(k + 5)] = (t_13_5 + t_14_5);
      acc_3[(k + 6)] = (t_13_6 + t_14_6);
      acc_3[(k + 7)] = (t_13_7 + t_14_7);
    }
    // 127: l_i = l_i * alpha + p
    float l_i_2[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      float t_15 = (l_i[k] * alpha[k]);
      l_i_2[k] = (t_15 + p[k]);
    }
    float acc_4[64];
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      acc_4[k] = acc_3[k];
    }
    float l_i_3[8];
    float m_new_1[8];
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      l_i_3[k] = l_i_2[k];
      m_new_1[k] = m_new[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 64); k += 1) {
      acc[k] = acc_4[k];
    }
    #pragma unroll 1
    for (int k = 0; (k < 8); k += 1) {
      l_i[k] = l_i_3[k];
      m_i[k] = m_new_1[k];
    }
  }
  // 129: m = tl.max(m_i, axis=0)
  float m[1];
  m[0] = m_i[0];
  m[0] = fmaxf(m[0], m_i[1]);
  m[0] = fmaxf(m[0], m_i[2]);
  m[0] = fmaxf(m[0], m_i[3]);
  m[0] = fmaxf(m[0], m_i[4]);
  m[0] = fmaxf(m[0], m_i[5]);
  m[0] = fmaxf(m[0], m_i[6]);
  m[0] = fmaxf(m[0], m_i[7]);
  float partner_4 = __shfl_xor_sync(0xffffffffu, m[0], 16);
  m[0] = fmaxf(m[0], partner_4);
  __syncthreads();
  if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) < 4))) {
    m_smem[int(threadIdx.x / 32u)] = m[0];
  }
  __syncthreads();
  m[0] = m_smem[0];
  m[0] = fmaxf(m[0], m_smem[1]);
  m[0] = fmaxf(m[0], m_smem[2]);
  m[0] = fmaxf(m[0], m_smem[3]);
  float m_1 = m[0];
  // 130: w = tl.where(m_i == m, 1.0, tl.exp(m_i - m))  # slots without keys (-inf) weigh 0
  float w[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    bool t_16 = (m_i[k] == m_1);
    float t_17 = mf_exp2(fmaf(m_i[k], 1.4426950408889634f, (-(m_1 * 1.4426950408889634f))));
    w[k] = (t_16 ? 1.0f : t_17);
  }
  // 131: acc = tl.sum(acc * w[:, None], axis=0)
  float t_18[64];
  #pragma unroll 1
  for (int k = 0; (k < 64); k += 1) {
    t_18[k] = (acc[k] * w[(k / 8)]);
  }
  float acc_5[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    acc_5[k] = t_18[k];
    acc_5[k] = (acc_5[k] + t_18[(8 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(16 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(24 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(32 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(40 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(48 + k)]);
    acc_5[k] = (acc_5[k] + t_18[(56 + k)]);
  }
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    float partner_5 = __shfl_xor_sync(0xffffffffu, acc_5[k], 16);
    acc_5[k] = (acc_5[k] + partner_5);
  }
  __syncthreads();
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) < 4))) {
      acc_5_smem[((int(threadIdx.x / 32u) * 128) + (((int(threadIdx.x % 32u) % 16) * 8) + k))] = acc_5[k];
    }
  }
  __syncthreads();
  float t_19[8];
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    acc_5[k] = acc_5_smem[(((int(threadIdx.x % 32u) % 16) * 8) + k)];
    acc_5[k] = (acc_5[k] + acc_5_smem[(128 + (((int(threadIdx.x % 32u) % 16) * 8) + k))]);
    acc_5[k] = (acc_5[k] + acc_5_smem[(256 + (((int(threadIdx.x % 32u) % 16) * 8) + k))]);
    acc_5[k] = (acc_5[k] + acc_5_smem[(384 + (((int(threadIdx.x % 32u) % 16) * 8) + k))]);
    // 132: l_i = tl.sum(l_i * w, axis=0)
    t_19[k] = (l_i[k] * w[k]);
  }
  float l_i_4[1];
  l_i_4[0] = t_19[0];
  l_i_4[0] = (l_i_4[0] + t_19[1]);
  l_i_4[0] = (l_i_4[0] + t_19[2]);
  l_i_4[0] = (l_i_4[0] + t_19[3]);
  l_i_4[0] = (l_i_4[0] + t_19[4]);
  l_i_4[0] = (l_i_4[0] + t_19[5]);
  l_i_4[0] = (l_i_4[0] + t_19[6]);
  l_i_4[0] = (l_i_4[0] + t_19[7]);
  float partner_6 = __shfl_xor_sync(0xffffffffu, l_i_4[0], 16);
  l_i_4[0] = (l_i_4[0] + partner_6);
  __syncthreads();
  if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) < 4))) {
    l_i_4_smem[int(threadIdx.x / 32u)] = l_i_4[0];
  }
  __syncthreads();
  l_i_4[0] = l_i_4_smem[0];
  l_i_4[0] = (l_i_4[0] + l_i_4_smem[1]);
  l_i_4[0] = (l_i_4[0] + l_i_4_smem[2]);
  l_i_4[0] = (l_i_4[0] + l_i_4_smem[3]);
  float l_i_5 = l_i_4[0];
  // 137: tl.store(o_ptr + part * D + d, acc)
  int t_20 = (part * 128);
  decltype(o_ptr) t_21 = (o_ptr + t_20);
  #pragma unroll 1
  for (int k = 0; (k < 8); k += 1) {
    int d = (((int(threadIdx.x % 32u) % 16) * 8) + k);
    if ((((int(threadIdx.x % 32u) / 16) == 0) && (int(threadIdx.x / 32u) == 0))) {
      *((t_21 + d)) = acc_5[k];
    }
  }
  // 138: tl.store(m_ptr + part, m_i)
  decltype(m_ptr) t_22 = (m_ptr + part);
  if ((int(threadIdx.x) == 0)) {
    *(t_22) = m_1;
  }
  // 139: tl.store(l_ptr + part, l_i)
  decltype(l_ptr) t_23 = (l_ptr + part);
  if ((int(threadIdx.x) == 0)) {
    *(t_23) = l_i_5;
  }
}
