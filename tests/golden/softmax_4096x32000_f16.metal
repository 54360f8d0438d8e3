// 65: row = tl.program_id(0)
// 66: base = row * row_stride
int base = (int(threadgroup_position_in_grid.x) * row_stride);
// 69: m = tl.full((BLOCK,), -float("inf"), tl.float32)
// 70: s = tl.zeros((BLOCK,), dtype=tl.float32)
// 71: for start in range(0, n_cols, BLOCK):
float s[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float s_1 = 0.0f;
  s[k] = s_1;
}
float m[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float m_1 = (-INFINITY);
  m[k] = m_1;
}
for (int start = 0; (start < n_cols); start += 4096) {
  // 72: offs = start + tl.arange(0, BLOCK)
  // 73: x = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
  decltype(x_ptr) t = (x_ptr + base);
  half t_1[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int offs_1 = (start + ((k * 256) + (int(thread_index_in_threadgroup) * 4)));
    {
      packed_half4 mf_v = packed_half4(half((-INFINITY)), half((-INFINITY)), half((-INFINITY)), half((-INFINITY)));
      if ((offs_1 < n_cols)) mf_v = *((const device packed_half4*)((t + offs_1)));
      t_1[k] = mf_v[0];
      t_1[(k + 1)] = mf_v[1];
      t_1[(k + 2)] = mf_v[2];
      t_1[(k + 3)] = mf_v[3];
    }
  }
  float x[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    x[k] = static_cast<float>(t_1[k]);
  }
  // 74: m_new = tl.maximum(m, x)
  float m_new[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    m_new[k] = metal::max(m[k], x[k]);
  }
  // 75: s = s * tl.exp(tl.where(m_new == m, 0.0, m - m_new)) + tl.exp(tl.where(x == m_new, 0.0, x - m_new))
  bool t_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_2[k] = (m_new[k] == m[k]);
  }
  float t_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_3[k] = (m[k] - m_new[k]);
  }
  float t_4[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_4[k] = (t_2[k] ? 0.0f : t_3[k]);
  }
  float t_5[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_5[k] = metal::exp(t_4[k]);
  }
  float t_6[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_6[k] = (s[k] * t_5[k]);
  }
  bool t_7[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_7[k] = (x[k] == m_new[k]);
  }
  float t_8[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_8[k] = (x[k] - m_new[k]);
  }
  float t_9[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_9[k] = (t_7[k] ? 0.0f : t_8[k]);
  }
  float t_10[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_10[k] = metal::exp(t_9[k]);
  }
  float s_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    s_2[k] = (t_6[k] + t_10[k]);
  }
  float s_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    s_3[k] = s_2[k];
  }
  float m_new_1[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    m_new_1[k] = m_new[k];
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    s[k] = s_3[k];
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    m[k] = m_new_1[k];
  }
}
// 77: row_max = tl.max(m, axis=0)
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
float partner = simd_shuffle_xor(row_max[0], ushort(1));
row_max[0] = metal::max(row_max[0], partner);
float partner_1 = simd_shuffle_xor(row_max[0], ushort(2));
row_max[0] = metal::max(row_max[0], partner_1);
float partner_2 = simd_shuffle_xor(row_max[0], ushort(4));
row_max[0] = metal::max(row_max[0], partner_2);
float partner_3 = simd_shuffle_xor(row_max[0], ushort(8));
row_max[0] = metal::max(row_max[0], partner_3);
float partner_4 = simd_shuffle_xor(row_max[0], ushort(16));
row_max[0] = metal::max(row_max[0], partner_4);
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
// 78: row_sum = tl.sum(s * tl.exp(tl.where(m == row_max, 0.0, m - row_max)), axis=0)
bool t_11[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_11[k] = (m[k] == row_max_1);
}
float t_12[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_12[k] = (m[k] - row_max_1);
}
float t_13[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_13[k] = (t_11[k] ? 0.0f : t_12[k]);
}
float t_14[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_14[k] = metal::exp(t_13[k]);
}
float t_15[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_15[k] = (s[k] * t_14[k]);
}
float row_sum[1];
row_sum[0] = t_15[0];
row_sum[0] = (row_sum[0] + t_15[1]);
row_sum[0] = (row_sum[0] + t_15[2]);
row_sum[0] = (row_sum[0] + t_15[3]);
row_sum[0] = (row_sum[0] + t_15[4]);
row_sum[0] = (row_sum[0] + t_15[5]);
row_sum[0] = (row_sum[0] + t_15[6]);
row_sum[0] = (row_sum[0] + t_15[7]);
row_sum[0] = (row_sum[0] + t_15[8]);
row_sum[0] = (row_sum[0] + t_15[9]);
row_sum[0] = (row_sum[0] + t_15[10]);
row_sum[0] = (row_sum[0] + t_15[11]);
row_sum[0] = (row_sum[0] + t_15[12]);
row_sum[0] = (row_sum[0] + t_15[13]);
row_sum[0] = (row_sum[0] + t_15[14]);
row_sum[0] = (row_sum[0] + t_15[15]);
float partner_5 = simd_shuffle_xor(row_sum[0], ushort(1));
row_sum[0] = (row_sum[0] + partner_5);
float partner_6 = simd_shuffle_xor(row_sum[0], ushort(2));
row_sum[0] = (row_sum[0] + partner_6);
float partner_7 = simd_shuffle_xor(row_sum[0], ushort(4));
row_sum[0] = (row_sum[0] + partner_7);
float partner_8 = simd_shuffle_xor(row_sum[0], ushort(8));
row_sum[0] = (row_sum[0] + partner_8);
float partner_9 = simd_shuffle_xor(row_sum[0], ushort(16));
row_sum[0] = (row_sum[0] + partner_9);
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
// 79: for start in range(0, n_cols, BLOCK):
for (int start_1 = 0; (start_1 < n_cols); start_1 += 4096) {
  // 80: offs = start + tl.arange(0, BLOCK)
  // 81: mask = offs < n_cols
  // 82: x = tl.load(x_ptr + base + offs, mask=mask, other=-float("inf")).to(tl.float32)
  decltype(x_ptr) t_16 = (x_ptr + base);
  half t_17[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int offs_3 = (start_1 + ((k * 256) + (int(thread_index_in_threadgroup) * 4)));
    bool mask = (offs_3 < n_cols);
    {
      packed_half4 mf_v = packed_half4(half((-INFINITY)), half((-INFINITY)), half((-INFINITY)), half((-INFINITY)));
      if (mask) mf_v = *((const device packed_half4*)((t_16 + offs_3)));
      t_17[k] = mf_v[0];
      t_17[(k + 1)] = mf_v[1];
      t_17[(k + 2)] = mf_v[2];
      t_17[(k + 3)] = mf_v[3];
    }
  }
  float x_1[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    x_1[k] = static_cast<float>(t_17[k]);
  }
  // 83: tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=mask)
  decltype(out_ptr) t_18 = (out_ptr + base);
  float t_19[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_19[k] = (x_1[k] - row_max_1);
  }
  float t_20[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_20[k] = metal::exp(t_19[k]);
  }
  float t_21[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_21[k] = (t_20[k] / row_sum_1);
  }
  half t_22[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_22[k] = static_cast<half>(t_21[k]);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int offs_4 = (start_1 + ((k * 256) + (int(thread_index_in_threadgroup) * 4)));
    bool mask = (offs_4 < n_cols);
    if (mask) {
      *((device packed_half4*)((t_18 + offs_4))) = packed_half4(t_22[k], t_22[(k + 1)], t_22[(k + 2)], t_22[(k + 3)]);
    }
  }
}
