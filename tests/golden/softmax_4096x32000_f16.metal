// 69: row = tl.program_id(0)
// 70: base = row * row_stride
int base = (int(threadgroup_position_in_grid.x) * row_stride);
// 71: if n_cols <= BLOCK:  # the row fits one block: read it once and keep it (the loops below read it twice)
bool t = (n_cols <= 4096);
if (t) {
  // 72: offs = tl.arange(0, BLOCK)
  // 73: mask = offs < n_cols
  // 74: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
  decltype(x_ptr) t_1 = (x_ptr + base);
  float x[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int offs_1 = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
    bool mask = (offs_1 < n_cols);
    half t_2_0;
    half t_2_1;
    half t_2_2;
    half t_2_3;
    {
      packed_half4 mf_v = packed_half4(half((-INFINITY)), half((-INFINITY)), half((-INFINITY)), half((-INFINITY)));
      if (mask) mf_v = *((const device packed_half4*)((t_1 + offs_1)));
      t_2_0 = mf_v[0];
      t_2_1 = mf_v[1];
      t_2_2 = mf_v[2];
      t_2_3 = mf_v[3];
    }
    x[k] = static_cast<float>(t_2_0);
    x[(k + 1)] = static_cast<float>(t_2_1);
    x[(k + 2)] = static_cast<float>(t_2_2);
    x[(k + 3)] = static_cast<float>(t_2_3);
  }
  // 75: e = tl.exp(x - tl.max(x, axis=0))
  float acc[1];
  acc[0] = x[0];
  acc[0] = metal::max(acc[0], x[1]);
  acc[0] = metal::max(acc[0], x[2]);
  acc[0] = metal::max(acc[0], x[3]);
  acc[0] = metal::max(acc[0], x[4]);
  acc[0] = metal::max(acc[0], x[5]);
  acc[0] = metal::max(acc[0], x[6]);
  acc[0] = metal::max(acc[0], x[7]);
  acc[0] = metal::max(acc[0], x[8]);
  acc[0] = metal::max(acc[0], x[9]);
  acc[0] = metal::max(acc[0], x[10]);
  acc[0] = metal::max(acc[0], x[11]);
  acc[0] = metal::max(acc[0], x[12]);
  acc[0] = metal::max(acc[0], x[13]);
  acc[0] = metal::max(acc[0], x[14]);
  acc[0] = metal::max(acc[0], x[15]);
  float partner = simd_shuffle_xor(acc[0], ushort(1));
  acc[0] = metal::max(acc[0], partner);
  float partner_1 = simd_shuffle_xor(acc[0], ushort(2));
  acc[0] = metal::max(acc[0], partner_1);
  float partner_2 = simd_shuffle_xor(acc[0], ushort(4));
  acc[0] = metal::max(acc[0], partner_2);
  float partner_3 = simd_shuffle_xor(acc[0], ushort(8));
  acc[0] = metal::max(acc[0], partner_3);
  float partner_4 = simd_shuffle_xor(acc[0], ushort(16));
  acc[0] = metal::max(acc[0], partner_4);
  threadgroup float acc_smem[8];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (((int(thread_index_in_simdgroup) == 0) && (int(simdgroup_index_in_threadgroup) < 8))) {
    acc_smem[int(simdgroup_index_in_threadgroup)] = acc[0];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  acc[0] = acc_smem[0];
  acc[0] = metal::max(acc[0], acc_smem[1]);
  acc[0] = metal::max(acc[0], acc_smem[2]);
  acc[0] = metal::max(acc[0], acc_smem[3]);
  acc[0] = metal::max(acc[0], acc_smem[4]);
  acc[0] = metal::max(acc[0], acc_smem[5]);
  acc[0] = metal::max(acc[0], acc_smem[6]);
  acc[0] = metal::max(acc[0], acc_smem[7]);
  float t_3 = acc[0];
  float e[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    e[k] = metal::exp2(metal::fma(x[k], 1.4426950408889634f, (-(t_3 * 1.4426950408889634f))));
  }
  // 76: tl.store(out_ptr + base + offs, e / tl.sum(e, axis=0), mask=mask)
  decltype(out_ptr) t_4 = (out_ptr + base);
  float acc_1[1];
  acc_1[0] = e[0];
  acc_1[0] = (acc_1[0] + e[1]);
  acc_1[0] = (acc_1[0] + e[2]);
  acc_1[0] = (acc_1[0] + e[3]);
  acc_1[0] = (acc_1[0] + e[4]);
  acc_1[0] = (acc_1[0] + e[5]);
  acc_1[0] = (acc_1[0] + e[6]);
  acc_1[0] = (acc_1[0] + e[7]);
  acc_1[0] = (acc_1[0] + e[8]);
  acc_1[0] = (acc_1[0] + e[9]);
  acc_1[0] = (acc_1[0] + e[10]);
  acc_1[0] = (acc_1[0] + e[11]);
  acc_1[0] = (acc_1[0] + e[12]);
  acc_1[0] = (acc_1[0] + e[13]);
  acc_1[0] = (acc_1[0] + e[14]);
  acc_1[0] = (acc_1[0] + e[15]);
  float partner_5 = simd_shuffle_xor(acc_1[0], ushort(1));
  acc_1[0] = (acc_1[0] + partner_5);
  float partner_6 = simd_shuffle_xor(acc_1[0], ushort(2));
  acc_1[0] = (acc_1[0] + partner_6);
  float partner_7 = simd_shuffle_xor(acc_1[0], ushort(4));
  acc_1[0] = (acc_1[0] + partner_7);
  float partner_8 = simd_shuffle_xor(acc_1[0], ushort(8));
  acc_1[0] = (acc_1[0] + partner_8);
  float partner_9 = simd_shuffle_xor(acc_1[0], ushort(16));
  acc_1[0] = (acc_1[0] + partner_9);
  threadgroup float acc_1_smem[8];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (((int(thread_index_in_simdgroup) == 0) && (int(simdgroup_index_in_threadgroup) < 8))) {
    acc_1_smem[int(simdgroup_index_in_threadgroup)] = acc_1[0];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  acc_1[0] = acc_1_smem[0];
  acc_1[0] = (acc_1[0] + acc_1_smem[1]);
  acc_1[0] = (acc_1[0] + acc_1_smem[2]);
  acc_1[0] = (acc_1[0] + acc_1_smem[3]);
  acc_1[0] = (acc_1[0] + acc_1_smem[4]);
  acc_1[0] = (acc_1[0] + acc_1_smem[5]);
  acc_1[0] = (acc_1[0] + acc_1_smem[6]);
  acc_1[0] = (acc_1[0] + acc_1_smem[7]);
  float t_5 = acc_1[0];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    float t_6_0 = (e[k] / t_5);
    half t_7_0 = static_cast<half>(t_6_0);
    float t_6_1 = (e[(k + 1)] / t_5);
    half t_7_1 = static_cast<half>(t_6_1);
    float t_6_2 = (e[(k + 2)] / t_5);
    half t_7_2 = static_cast<half>(t_6_2);
    float t_6_3 = (e[(k + 3)] / t_5);
    half t_7_3 = static_cast<half>(t_6_3);
    int offs_2 = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
    bool mask = (offs_2 < n_cols);
    if (mask) {
      *((device packed_half4*)((t_4 + offs_2))) = packed_half4(t_7_0, t_7_1, t_7_2, t_7_3);
    }
  }
  // 77: return
  return;
}
// 80: m = tl.full((BLOCK,), -float("inf"), tl.float32)
// 81: s = tl.zeros((BLOCK,), dtype=tl.float32)
// 82: for start in range(0, n_cols, BLOCK):
float s[16];
float m[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float s_1 = 0.0f;
  s[k] = s_1;
  float m_1 = (-INFINITY);
  m[k] = m_1;
}
for (int start = 0; (start < n_cols); start += 4096) {
  // 83: offs = start + tl.arange(0, BLOCK)
  // 84: x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
  decltype(x_ptr) t_8 = (x_ptr + base);
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int offs_4 = (start + ((k * 256) + (int(thread_index_in_threadgroup) * 4)));
    half t_9_0;
    half t_9_1;
    half t_9_2;
    half t_9_3;
    {
      packed_half4 mf_v = packed_half4(half((-INFINITY)), half((-INFINITY)), half((-INFINITY)), half((-INFINITY)));
      if ((offs_4 < n_cols)) mf_v = *((const device packed_half4*)((t_8 + offs_4)));
      t_9_0 = mf_v[0];
      t_9_1 = mf_v[1];
      t_9_2 = mf_v[2];
      t_9_3 = mf_v[3];
    }
    float x_1_0 = static_cast<float>(t_9_0);
    float x_1_1 = static_cast<float>(t_9_1);
    float x_1_2 = static_cast<float>(t_9_2);
    float x_1_3 = static_cast<float>(t_9_3);
    // 85: m_new = tl.maximum(m, x)
    float m_new_0 = metal::max(m[k], x_1_0);
    float m_new_1_1 = metal::max(m[(k + 1)], x_1_1);
    float m_new_2 = metal::max(m[(k + 2)], x_1_2);
    float m_new_3 = metal::max(m[(k + 3)], x_1_3);
    // 86: s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
    bool t_10_0 = (m_new_0 == m[k]);
    bool t_10_1 = (m_new_1_1 == m[(k + 1)]);
    bool t_10_2 = (m_new_2 == m[(k + 2)]);
    bool t_10_3 = (m_new_3 == m[(k + 3)]);
    float t_11_0 = (m[k] - m_new_0);
    float t_11_1 = (m[(k + 1)] - m_new_1_1);
    float t_11_2 = (m[(k + 2)] - m_new_2);
    float t_11_3 = (m[(k + 3)] - m_new_3);
    float t_12_0 = (t_10_0 ? 0.0f : t_11_0);
    float t_12_1 = (t_10_1 ? 0.0f : t_11_1);
    float t_12_2 = (t_10_2 ? 0.0f : t_11_2);
    float t_12_3 = (t_10_3 ? 0.0f : t_11_3);
    float t_13_0 = metal::exp(t_12_0);
    float t_13_1 = metal::exp(t_12_1);
    float t_13_2 = metal::exp(t_12_2);
    float t_13_3 = metal::exp(t_12_3);
    float t_14_0 = (s[k] * t_13_0);
    float t_14_1 = (s[(k + 1)] * t_13_1);
    float t_14_2 = (s[(k + 2)] * t_13_2);
    float t_14_3 = (s[(k + 3)] * t_13_3);
    bool t_15_0 = (x_1_0 == m_new_0);
    bool t_15_1 = (x_1_1 == m_new_1_1);
    bool t_15_2 = (x_1_2 == m_new_2);
    bool t_15_3 = (x_1_3 == m_new_3);
    float t_16_0 = (x_1_0 - m_new_0);
    float t_16_1 = (x_1_1 - m_new_1_1);
    float t_16_2 = (x_1_2 - m_new_2);
    float t_16_3 = (x_1_3 - m_new_3);
    float t_17_0 = (t_15_0 ? 0.0f : t_16_0);
    float t_17_1 = (t_15_1 ? 0.0f : t_16_1);
    float t_17_2 = (t_15_2 ? 0.0f : t_16_2);
    float t_17_3 = (t_15_3 ? 0.0f : t_16_3);
    float t_18_0 = metal::exp(t_17_0);
    float t_18_1 = metal::exp(t_17_1);
    float t_18_2 = metal::exp(t_17_2);
    float t_18_3 = metal::exp(t_17_3);
    float s_2_0 = (t_14_0 + t_18_0);
    float s_2_1 = (t_14_1 + t_18_1);
    float s_2_2 = (t_14_2 + t_18_2);
    float s_2_3 = (t_14_3 + t_18_3);
    float s_3_0 = s_2_0;
    float s_3_1 = s_2_1;
    float s_3_2 = s_2_2;
    float s_3_3 = s_2_3;
    float m_new_1_0 = m_new_0;
    float m_new_1_1_1 = m_new_1_1;
    float m_new_1_2 = m_new_2;
    float m_new_1_3 = m_new_3;
    s[k] = s_3_0;
    s[(k + 1)] = s_3_1;
    s[(k + 2)] = s_3_2;
    s[(k + 3)] = s_3_3;
    m[k] = m_new_1_0;
    m[(k + 1)] = m_new_1_1_1;
    m[(k + 2)] = m_new_1_2;
    m[(k + 3)] = m_new_1_3;
  }
}
// 88: row_max = tl.max(m, axis=0)
float row_max[1];
row_max[0] = m[0];
row_max[0] = metal::max(row_max[0], m[1]);
row_max[0] = metal::max(row_max[0], m[2]);
row_max[0] = metal::max(row_max[0], m[3]);
row_max[0] = metal::max(row_max[0], m[4]);
row_max[0] = metal::max(row_max[0], m[5]);
row_max[0] = metal::max(row_max[0], m[6]);
row_max[0] = metal::max(row_max[0], m[7]);
row_max[0] = metal::max(row_max[0], m[8]);
row_max[0] = metal::max(row_max[0], m[9]);
row_max[0] = metal::max(row_max[0], m[10]);
row_max[0] = metal::max(row_max[0], m[11]);
row_max[0] = metal::max(row_max[0], m[12]);
row_max[0] = metal::max(row_max[0], m[13]);
row_max[0] = metal::max(row_max[0], m[14]);
row_max[0] = metal::max(row_max[0], m[15]);
float partner_10 = simd_shuffle_xor(row_max[0], ushort(1));
row_max[0] = metal::max(row_max[0], partner_10);
float partner_11 = simd_shuffle_xor(row_max[0], ushort(2));
row_max[0] = metal::max(row_max[0], partner_11);
float partner_12 = simd_shuffle_xor(row_max[0], ushort(4));
row_max[0] = metal::max(row_max[0], partner_12);
float partner_13 = simd_shuffle_xor(row_max[0], ushort(8));
row_max[0] = metal::max(row_max[0], partner_13);
float partner_14 = simd_shuffle_xor(row_max[0], ushort(16));
row_max[0] = metal::max(row_max[0], partner_14);
threadgroup float row_max_smem[8];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (((int(thread_index_in_simdgroup) == 0) && (int(simdgroup_index_in_threadgroup) < 8))) {
  row_max_smem[int(simdgroup_index_in_threadgroup)] = row_max[0];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
row_max[0] = row_max_smem[0];
row_max[0] = metal::max(row_max[0], row_max_smem[1]);
row_max[0] = metal::max(row_max[0], row_max_smem[2]);
row_max[0] = metal::max(row_max[0], row_max_smem[3]);
row_max[0] = metal::max(row_max[0], row_max_smem[4]);
row_max[0] = metal::max(row_max[0], row_max_smem[5]);
row_max[0] = metal::max(row_max[0], row_max_smem[6]);
row_max[0] = metal::max(row_max[0], row_max_smem[7]);
float row_max_1 = row_max[0];
// 89: row_sum = tl.sum(s * tl.exp(tl.where(m == row_max, 0.0, m - row_max)), axis=0)
float t_23[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  bool t_19 = (m[k] == row_max_1);
  float t_20 = (m[k] - row_max_1);
  float t_21 = (t_19 ? 0.0f : t_20);
  float t_22 = metal::exp(t_21);
  t_23[k] = (s[k] * t_22);
}
float row_sum[1];
row_sum[0] = t_23[0];
row_sum[0] = (row_sum[0] + t_23[1]);
row_sum[0] = (row_sum[0] + t_23[2]);
row_sum[0] = (row_sum[0] + t_23[3]);
row_sum[0] = (row_sum[0] + t_23[4]);
row_sum[0] = (row_sum[0] + t_23[5]);
row_sum[0] = (row_sum[0] + t_23[6]);
row_sum[0] = (row_sum[0] + t_23[7]);
row_sum[0] = (row_sum[0] + t_23[8]);
row_sum[0] = (row_sum[0] + t_23[9]);
row_sum[0] = (row_sum[0] + t_23[10]);
row_sum[0] = (row_sum[0] + t_23[11]);
row_sum[0] = (row_sum[0] + t_23[12]);
row_sum[0] = (row_sum[0] + t_23[13]);
row_sum[0] = (row_sum[0] + t_23[14]);
row_sum[0] = (row_sum[0] + t_23[15]);
float partner_15 = simd_shuffle_xor(row_sum[0], ushort(1));
row_sum[0] = (row_sum[0] + partner_15);
float partner_16 = simd_shuffle_xor(row_sum[0], ushort(2));
row_sum[0] = (row_sum[0] + partner_16);
float partner_17 = simd_shuffle_xor(row_sum[0], ushort(4));
row_sum[0] = (row_sum[0] + partner_17);
float partner_18 = simd_shuffle_xor(row_sum[0], ushort(8));
row_sum[0] = (row_sum[0] + partner_18);
float partner_19 = simd_shuffle_xor(row_sum[0], ushort(16));
row_sum[0] = (row_sum[0] + partner_19);
threadgroup float row_sum_smem[8];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (((int(thread_index_in_simdgroup) == 0) && (int(simdgroup_index_in_threadgroup) < 8))) {
  row_sum_smem[int(simdgroup_index_in_threadgroup)] = row_sum[0];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
row_sum[0] = row_sum_smem[0];
row_sum[0] = (row_sum[0] + row_sum_smem[1]);
row_sum[0] = (row_sum[0] + row_sum_smem[2]);
row_sum[0] = (row_sum[0] + row_sum_smem[3]);
row_sum[0] = (row_sum[0] + row_sum_smem[4]);
row_sum[0] = (row_sum[0] + row_sum_smem[5]);
row_sum[0] = (row_sum[0] + row_sum_smem[6]);
row_sum[0] = (row_sum[0] + row_sum_smem[7]);
float row_sum_1 = row_sum[0];
// 90: for start in range(0, n_cols, BLOCK):
for (int start_1 = 0; (start_1 < n_cols); start_1 += 4096) {
  // 91: offs = start + tl.arange(0, BLOCK)
  // 92: mask = offs < n_cols
  // 93: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
  decltype(x_ptr) t_24 = (x_ptr + base);
  decltype(out_ptr) t_26 = (out_ptr + base);
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int offs_6 = (start_1 + ((k * 256) + (int(thread_index_in_threadgroup) * 4)));
    bool mask_1 = (offs_6 < n_cols);
    half t_25_0;
    half t_25_1;
    half t_25_2;
    half t_25_3;
    {
      packed_half4 mf_v = packed_half4(half((-INFINITY)), half((-INFINITY)), half((-INFINITY)), half((-INFINITY)));
      if (mask_1) mf_v = *((const device packed_half4*)((t_24 + offs_6)));
      t_25_0 = mf_v[0];
      t_25_1 = mf_v[1];
      t_25_2 = mf_v[2];
      t_25_3 = mf_v[3];
    }
    float x_2_0 = static_cast<float>(t_25_0);
    float x_2_1 = static_cast<float>(t_25_1);
    float x_2_2 = static_cast<float>(t_25_2);
    float x_2_3 = static_cast<float>(t_25_3);
    // 94: tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)
    float t_27_0 = metal::exp2(metal::fma(x_2_0, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
    float t_27_1 = metal::exp2(metal::fma(x_2_1, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
    float t_27_2 = metal::exp2(metal::fma(x_2_2, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
    float t_27_3 = metal::exp2(metal::fma(x_2_3, 1.4426950408889634f, (-(row_max_1 * 1.4426950408889634f))));
    float t_28_0 = (t_27_0 / row_sum_1);
    float t_28_1 = (t_27_1 / row_sum_1);
    float t_28_2 = (t_27_2 / row_sum_1);
    float t_28_3 = (t_27_3 / row_sum_1);
    half t_29_0 = static_cast<half>(t_28_0);
    half t_29_1 = static_cast<half>(t_28_1);
    half t_29_2 = static_cast<half>(t_28_2);
    half t_29_3 = static_cast<half>(t_28_3);
    int offs_7 = (start_1 + ((k * 256) + (int(thread_index_in_threadgroup) * 4)));
    bool mask_1_1 = (offs_7 < n_cols);
    if (mask_1_1) {
      *((device packed_half4*)((t_26 + offs_7))) = packed_half4(t_29_0, t_29_1, t_29_2, t_29_3);
    }
  }
}
