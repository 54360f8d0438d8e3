
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
float* acc_1_smem = reinterpret_cast<float*>(mf_shared + 32);
if ((((mf_is_aligned(b_ptr, 16) && mf_is_aligned(out_ptr, 16)) && mf_is_aligned(w_ptr, 16)) && mf_is_aligned(x_ptr, 16))) {
  // 105: row = tl.program_id(0)
  // 106: offs = tl.arange(0, BLOCK)
  // 107: mask = offs < n_cols
  // 108: x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
  int t = (int(blockIdx.x) * mf_n_cols);
  decltype(x_ptr) t_1 = (x_ptr + t);
  float x[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 4) {
    int offs = ((k * 256) + (int(threadIdx.x) * 4));
    bool mask = (offs < mf_n_cols);
    {
      mf_vec<4, float> mf_v{{0.0f, 0.0f, 0.0f, 0.0f}};
      mf_load_masked(mf_v, (t_1 + offs), mask);
      x[k] = mf_v.v[0];
      x[(k + 1)] = mf_v.v[1];
      x[(k + 2)] = mf_v.v[2];
      x[(k + 3)] = mf_v.v[3];
    }
  }
  // 109: mean = tl.sum(x, axis=0) / n_cols
  float acc[1];
  acc[0] = x[0];
  acc[0] = (acc[0] + x[1]);
  acc[0] = (acc[0] + x[2]);
  acc[0] = (acc[0] + x[3]);
  acc[0] = (acc[0] + x[4]);
  acc[0] = (acc[0] + x[5]);
  acc[0] = (acc[0] + x[6]);
  acc[0] = (acc[0] + x[7]);
  acc[0] = (acc[0] + x[8]);
  acc[0] = (acc[0] + x[9]);
  acc[0] = (acc[0] + x[10]);
  acc[0] = (acc[0] + x[11]);
  acc[0] = (acc[0] + x[12]);
  acc[0] = (acc[0] + x[13]);
  acc[0] = (acc[0] + x[14]);
  acc[0] = (acc[0] + x[15]);
  acc[0] = (acc[0] + x[16]);
  acc[0] = (acc[0] + x[17]);
  acc[0] = (acc[0] + x[18]);
  acc[0] = (acc[0] + x[19]);
  acc[0] = (acc[0] + x[20]);
  acc[0] = (acc[0] + x[21]);
  acc[0] = (acc[0] + x[22]);
  acc[0] = (acc[0] + x[23]);
  acc[0] = (acc[0] + x[24]);
  acc[0] = (acc[0] + x[25]);
  acc[0] = (acc[0] + x[26]);
  acc[0] = (acc[0] + x[27]);
  acc[0] = (acc[0] + x[28]);
  acc[0] = (acc[0] + x[29]);
  acc[0] = (acc[0] + x[30]);
  acc[0] = (acc[0] + x[31]);
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
  float t_2 = acc[0];
  float t_3 = static_cast<float>(mf_n_cols);
  float mean = mf_fdiv(t_2, t_3);
  // 110: xc = tl.where(mask, x - mean, 0.0)
  float xc[32];
  float t_5[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    float t_4 = (x[k] - mean);
    int offs = ((((k / 4) * 1024) + (int(threadIdx.x) * 4)) + (k % 4));
    bool mask = (offs < mf_n_cols);
    xc[k] = (mask ? t_4 : 0.0f);
    // 111: rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    t_5[k] = (xc[k] * xc[k]);
  }
  float acc_1[1];
  acc_1[0] = t_5[0];
  acc_1[0] = (acc_1[0] + t_5[1]);
  acc_1[0] = (acc_1[0] + t_5[2]);
  acc_1[0] = (acc_1[0] + t_5[3]);
  acc_1[0] = (acc_1[0] + t_5[4]);
  acc_1[0] = (acc_1[0] + t_5[5]);
  acc_1[0] = (acc_1[0] + t_5[6]);
  acc_1[0] = (acc_1[0] + t_5[7]);
  acc_1[0] = (acc_1[0] + t_5[8]);
  acc_1[0] = (acc_1[0] + t_5[9]);
  acc_1[0] = (acc_1[0] + t_5[10]);
  acc_1[0] = (acc_1[0] + t_5[11]);
  acc_1[0] = (acc_1[0] + t_5[12]);
  acc_1[0] = (acc_1[0] + t_5[13]);
  acc_1[0] = (acc_1[0] + t_5[14]);
  acc_1[0] = (acc_1[0] + t_5[15]);
  acc_1[0] = (acc_1[0] + t_5[16]);
  acc_1[0] = (acc_1[0] + t_5[17]);
  acc_1[0] = (acc_1[0] + t_5[18]);
  acc_1[0] = (acc_1[0] + t_5[19]);
  acc_1[0] = (acc_1[0] + t_5[20]);
  acc_1[0] = (acc_1[0] + t_5[21]);
  acc_1[0] = (acc_1[0] + t_5[22]);
  acc_1[0] = (acc_1[0] + t_5[23]);
  acc_1[0] = (acc_1[0] + t_5[24]);
  acc_1[0] = (acc_1[0] + t_5[25]);
  acc_1[0] = (acc_1[0] + t_5[26]);
  acc_1[0] = (acc_1[0] + t_5[27]);
  acc_1[0] = (acc_1[0] + t_5[28]);
  acc_1[0] = (acc_1[0] + t_5[29]);
  acc_1[0] = (acc_1[0] + t_5[30]);
  acc_1[0] = (acc_1[0] + t_5[31]);
  float partner_5 = __shfl_xor_sync(0xffffffffu, acc_1[0], 1);
  acc_1[0] = (acc_1[0] + partner_5);
  float partner_6 = __shfl_xor_sync(0xffffffffu, acc_1[0], 2);
  acc_1[0] = (acc_1[0] + partner_6);
  float partner_7 = __shfl_xor_sync(0xffffffffu, acc_1[0], 4);
  acc_1[0] = (acc_1[0] + partner_7);
  float partner_8 = __shfl_xor_sync(0xffffffffu, acc_1[0], 8);
  acc_1[0] = (acc_1[0] + partner_8);
  float partner_9 = __shfl_xor_sync(0xffffffffu, acc_1[0], 16);
  acc_1[0] = (acc_1[0] + partner_9);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    acc_1_smem[int(threadIdx.x / 32u)] = acc_1[0];
  }
  __syncthreads();
  acc_1[0] = acc_1_smem[0];
  acc_1[0] = (acc_1[0] + acc_1_smem[1]);
  acc_1[0] = (acc_1[0] + acc_1_smem[2]);
  acc_1[0] = (acc_1[0] + acc_1_smem[3]);
  acc_1[0] = (acc_1[0] + acc_1_smem[4]);
  acc_1[0] = (acc_1[0] + acc_1_smem[5]);
  acc_1[0] = (acc_1[0] + acc_1_smem[6]);
  acc_1[0] = (acc_1[0] + acc_1_smem[7]);
  float t_6 = acc_1[0];
  float t_7 = static_cast<float>(mf_n_cols);
  float t_8 = mf_fdiv(t_6, t_7);
  float t_9 = (t_8 + mf_eps);
  float t_10 = mf_sqrt(t_9);
  float rstd = mf_fdiv(1.0f, t_10);
  // 112: w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
  int t_11 = (int(blockIdx.x) * mf_n_cols);
  decltype(out_ptr) t_12 = (out_ptr + t_11);
  #pragma unroll
  for (int k = 0; (k < 32); k += 4) {
    int offs = ((k * 256) + (int(threadIdx.x) * 4));
    bool mask = (offs < mf_n_cols);
    float w_0;
    float w_1;
    float w_2;
    float w_3;
    {
      mf_vec<4, float> mf_v{{0.0f, 0.0f, 0.0f, 0.0f}};
      mf_load_masked(mf_v, (w_ptr + offs), mask);
      w_0 = mf_v.v[0];
      w_1 = mf_v.v[1];
      w_2 = mf_v.v[2];
      w_3 = mf_v.v[3];
    }
    // 113: b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    float b_0;
    float b_1;
    float b_2;
    float b_3;
    {
      mf_vec<4, float> mf_v{{0.0f, 0.0f, 0.0f, 0.0f}};
      mf_load_masked(mf_v, (b_ptr + offs), mask);
      b_0 = mf_v.v[0];
      b_1 = mf_v.v[1];
      b_2 = mf_v.v[2];
      b_3 = mf_v.v[3];
    }
    // 114: tl.store(out_ptr + row * n_cols + offs, xc * rstd * w + b, mask=mask)
    float t_13_0 = (xc[k] * rstd);
    float t_13_1 = (xc[(k + 1)] * rstd);
    float t_13_2 = (xc[(k + 2)] * rstd);
    float t_13_3 = (xc[(k + 3)] * rstd);
    float t_14_0 = (t_13_0 * w_0);
    float t_14_1 = (t_13_1 * w_1);
    float t_14_2 = (t_13_2 * w_2);
    float t_14_3 = (t_13_3 * w_3);
    float t_15_0 = (t_14_0 + b_0);
    float t_15_1 = (t_14_1 + b_1);
    float t_15_2 = (t_14_2 + b_2);
    float t_15_3 = (t_14_3 + b_3);
    if (mask) {
      *reinterpret_cast<mf_vec<4, float>*>((t_12 + offs)) = mf_vec<4, float>{{t_15_0, t_15_1, t_15_2, t_15_3}};
    }
  }
  // 115: tl.store(mean_ptr + row, mean)
  decltype(mean_ptr) t_16 = (mean_ptr + int(blockIdx.x));
  if ((int(threadIdx.x) == 0)) {
    *(t_16) = mean;
  }
  // 116: tl.store(rstd_ptr + row, rstd)
  decltype(rstd_ptr) t_17 = (rstd_ptr + int(blockIdx.x));
  if ((int(threadIdx.x) == 0)) {
    *(t_17) = rstd;
  }
} else {
  // 105: row = tl.program_id(0)
  // 106: offs = tl.arange(0, BLOCK)
  // 107: mask = offs < n_cols
  // 108: x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
  int t = (int(blockIdx.x) * mf_n_cols);
  decltype(x_ptr) t_1 = (x_ptr + t);
  float x[32];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 4) {
    int offs = ((k * 256) + (int(threadIdx.x) * 4));
    bool mask = (offs < mf_n_cols);
    if (mask) {
      x[k] = (t_1 + offs)[0];
      x[(k + 1)] = (t_1 + offs)[1];
      x[(k + 2)] = (t_1 + offs)[2];
      x[(k + 3)] = (t_1 + offs)[3];
    } else {
      x[k] = 0.0f;
      x[(k + 1)] = 0.0f;
      x[(k + 2)] = 0.0f;
      x[(k + 3)] = 0.0f;
    }
  }
  // 109: mean = tl.sum(x, axis=0) / n_cols
  float acc[1];
  acc[0] = x[0];
  acc[0] = (acc[0] + x[1]);
  acc[0] = (acc[0] + x[2]);
  acc[0] = (acc[0] + x[3]);
  acc[0] = (acc[0] + x[4]);
  acc[0] = (acc[0] + x[5]);
  acc[0] = (acc[0] + x[6]);
  acc[0] = (acc[0] + x[7]);
  acc[0] = (acc[0] + x[8]);
  acc[0] = (acc[0] + x[9]);
  acc[0] = (acc[0] + x[10]);
  acc[0] = (acc[0] + x[11]);
  acc[0] = (acc[0] + x[12]);
  acc[0] = (acc[0] + x[13]);
  acc[0] = (acc[0] + x[14]);
  acc[0] = (acc[0] + x[15]);
  acc[0] = (acc[0] + x[16]);
  acc[0] = (acc[0] + x[17]);
  acc[0] = (acc[0] + x[18]);
  acc[0] = (acc[0] + x[19]);
  acc[0] = (acc[0] + x[20]);
  acc[0] = (acc[0] + x[21]);
  acc[0] = (acc[0] + x[22]);
  acc[0] = (acc[0] + x[23]);
  acc[0] = (acc[0] + x[24]);
  acc[0] = (acc[0] + x[25]);
  acc[0] = (acc[0] + x[26]);
  acc[0] = (acc[0] + x[27]);
  acc[0] = (acc[0] + x[28]);
  acc[0] = (acc[0] + x[29]);
  acc[0] = (acc[0] + x[30]);
  acc[0] = (acc[0] + x[31]);
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
  float t_2 = acc[0];
  float t_3 = static_cast<float>(mf_n_cols);
  float mean = mf_fdiv(t_2, t_3);
  // 110: xc = tl.where(mask, x - mean, 0.0)
  float xc[32];
  float t_5[32];
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 1) {
    float t_4 = (x[k] - mean);
    int offs = ((((k / 4) * 1024) + (int(threadIdx.x) * 4)) + (k % 4));
    bool mask = (offs < mf_n_cols);
    xc[k] = (mask ? t_4 : 0.0f);
    // 111: rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    t_5[k] = (xc[k] * xc[k]);
  }
  float acc_1[1];
  acc_1[0] = t_5[0];
  acc_1[0] = (acc_1[0] + t_5[1]);
  acc_1[0] = (acc_1[0] + t_5[2]);
  acc_1[0] = (acc_1[0] + t_5[3]);
  acc_1[0] = (acc_1[0] + t_5[4]);
  acc_1[0] = (acc_1[0] + t_5[5]);
  acc_1[0] = (acc_1[0] + t_5[6]);
  acc_1[0] = (acc_1[0] + t_5[7]);
  acc_1[0] = (acc_1[0] + t_5[8]);
  acc_1[0] = (acc_1[0] + t_5[9]);
  acc_1[0] = (acc_1[0] + t_5[10]);
  acc_1[0] = (acc_1[0] + t_5[11]);
  acc_1[0] = (acc_1[0] + t_5[12]);
  acc_1[0] = (acc_1[0] + t_5[13]);
  acc_1[0] = (acc_1[0] + t_5[14]);
  acc_1[0] = (acc_1[0] + t_5[15]);
  acc_1[0] = (acc_1[0] + t_5[16]);
  acc_1[0] = (acc_1[0] + t_5[17]);
  acc_1[0] = (acc_1[0] + t_5[18]);
  acc_1[0] = (acc_1[0] + t_5[19]);
  acc_1[0] = (acc_1[0] + t_5[20]);
  acc_1[0] = (acc_1[0] + t_5[21]);
  acc_1[0] = (acc_1[0] + t_5[22]);
  acc_1[0] = (acc_1[0] + t_5[23]);
  acc_1[0] = (acc_1[0] + t_5[24]);
  acc_1[0] = (acc_1[0] + t_5[25]);
  acc_1[0] = (acc_1[0] + t_5[26]);
  acc_1[0] = (acc_1[0] + t_5[27]);
  acc_1[0] = (acc_1[0] + t_5[28]);
  acc_1[0] = (acc_1[0] + t_5[29]);
  acc_1[0] = (acc_1[0] + t_5[30]);
  acc_1[0] = (acc_1[0] + t_5[31]);
  float partner_5 = __shfl_xor_sync(0xffffffffu, acc_1[0], 1);
  acc_1[0] = (acc_1[0] + partner_5);
  float partner_6 = __shfl_xor_sync(0xffffffffu, acc_1[0], 2);
  acc_1[0] = (acc_1[0] + partner_6);
  float partner_7 = __shfl_xor_sync(0xffffffffu, acc_1[0], 4);
  acc_1[0] = (acc_1[0] + partner_7);
  float partner_8 = __shfl_xor_sync(0xffffffffu, acc_1[0], 8);
  acc_1[0] = (acc_1[0] + partner_8);
  float partner_9 = __shfl_xor_sync(0xffffffffu, acc_1[0], 16);
  acc_1[0] = (acc_1[0] + partner_9);
  __syncthreads();
  if (((int(threadIdx.x % 32u) == 0) && (int(threadIdx.x / 32u) < 8))) {
    acc_1_smem[int(threadIdx.x / 32u)] = acc_1[0];
  }
  __syncthreads();
  acc_1[0] = acc_1_smem[0];
  acc_1[0] = (acc_1[0] + acc_1_smem[1]);
  acc_1[0] = (acc_1[0] + acc_1_smem[2]);
  acc_1[0] = (acc_1[0] + acc_1_smem[3]);
  acc_1[0] = (acc_1[0] + acc_1_smem[4]);
  acc_1[0] = (acc_1[0] + acc_1_smem[5]);
  acc_1[0] = (acc_1[0] + acc_1_smem[6]);
  acc_1[0] = (acc_1[0] + acc_1_smem[7]);
  float t_6 = acc_1[0];
  float t_7 = static_cast<float>(mf_n_cols);
  float t_8 = mf_fdiv(t_6, t_7);
  float t_9 = (t_8 + mf_eps);
  float t_10 = mf_sqrt(t_9);
  float rstd = mf_fdiv(1.0f, t_10);
  // 112: w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
  int t_11 = (int(blockIdx.x) * mf_n_cols);
  decltype(out_ptr) t_12 = (out_ptr + t_11);
  #pragma unroll 1
  for (int k = 0; (k < 32); k += 4) {
    int offs = ((k * 256) + (int(threadIdx.x) * 4));
    bool mask = (offs < mf_n_cols);
    float w_0;
    float w_1;
    float w_2;
    float w_3;
    if (mask) {
      w_0 = (w_ptr + offs)[0];
      w_1 = (w_ptr + offs)[1];
      w_2 = (w_ptr + offs)[2];
      w_3 = (w_ptr + offs)[3];
    } else {
      w_0 = 0.0f;
      w_1 = 0.0f;
      w_2 = 0.0f;
      w_3 = 0.0f;
    }
    // 113: b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    float b_0;
    float b_1;
    float b_2;
    float b_3;
    if (mask) {
      b_0 = (b_ptr + offs)[0];
      b_1 = (b_ptr + offs)[1];
      b_2 = (b_ptr + offs)[2];
      b_3 = (b_ptr + offs)[3];
    } else {
      b_0 = 0.0f;
      b_1 = 0.0f;
      b_2 = 0.0f;
      b_3 = 0.0f;
    }
    // 114: tl.store(out_ptr + row * n_cols + offs, xc * rstd * w + b, mask=mask)
    float t_13_0 = (xc[k] * rstd);
    float t_13_1 = (xc[(k + 1)] * rstd);
    float t_13_2 = (xc[(k + 2)] * rstd);
    float t_13_3 = (xc[(k + 3)] * rstd);
    float t_14_0 = (t_13_0 * w_0);
    float t_14_1 = (t_13_1 * w_1);
    float t_14_2 = (t_13_2 * w_2);
    float t_14_3 = (t_13_3 * w_3);
    float t_15_0 = (t_14_0 + b_0);
    float t_15_1 = (t_14_1 + b_1);
    float t_15_2 = (t_14_2 + b_2);
    float t_15_3 = (t_14_3 + b_3);
    if (mask) {
      (t_12 + offs)[0] = t_15_0;
      (t_12 + offs)[1] = t_15_1;
      (t_12 + offs)[2] = t_15_2;
      (t_12 + offs)[3] = t_15_3;
    }
  }
  // 115: tl.store(mean_ptr + row, mean)
  decltype(mean_ptr) t_16 = (mean_ptr + int(blockIdx.x));
  if ((int(threadIdx.x) == 0)) {
    *(t_16) = mean;
  }
  // 116: tl.store(rstd_ptr + row, rstd)
  decltype(rstd_ptr) t_17 = (rstd_ptr + int(blockIdx.x));
  if ((int(threadIdx.x) == 0)) {
    *(t_17) = rstd;
  }
}
