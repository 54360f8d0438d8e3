// 103: head = tl.program_id(0)
// 104: split = tl.program_id(1)
// 105: part = head * tl.num_programs(1) + split
int t = (int(threadgroup_position_in_grid.x) * int(threadgroups_per_grid.y));
int part = (t + int(threadgroup_position_in_grid.y));
// 106: kv_head = head // GROUP
int kv_head = (int(threadgroup_position_in_grid.x) / 4);
// 107: d = tl.arange(0, D)
// 108: q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale
int t_1 = (int(threadgroup_position_in_grid.x) * 128);
decltype(q_ptr) t_2 = (q_ptr + t_1);
half t_3[1];
t_3[0] = (t_2 + int(thread_index_in_threadgroup))[0];
float t_4[1];
t_4[0] = static_cast<float>(t_3[0]);
float q[1];
q[0] = (t_4[0] * scale);
// 109: m_i = tl.full((BLOCK_N,), -float("inf"), tl.float32)
// 110: l_i = tl.zeros((BLOCK_N,), dtype=tl.float32)
// 111: acc = tl.zeros((BLOCK_N, D), dtype=tl.float32)
// 112: lo = split * SPLIT
int lo = (int(threadgroup_position_in_grid.y) * SPLIT);
// 113: hi = tl.minimum(lo + SPLIT, S)
int t_5 = (lo + SPLIT);
int hi = metal::min(t_5, S);
// 114: first_key = kv_head * (S + KV_SPARE)  # the head's first key slot
int t_6 = (S + KV_SPARE);
int first_key = (kv_head * t_6);
// 115: for start in range(lo, hi, BLOCK_N):
float acc[64];
#pragma unroll
for (int k = 0; (k < 64); k += 1) {
  float acc_1 = 0.0f;
  acc[k] = acc_1;
}
float l_i[16];
float m_i[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float l_i_1 = 0.0f;
  l_i[k] = l_i_1;
  float m_i_1 = (-INFINITY);
  m_i[k] = m_i_1;
}
threadgroup float q_1_smem[128];
threadgroup_barrier(mem_flags::mem_threadgroup);
q_1_smem[int(thread_index_in_threadgroup)] = q[0];
threadgroup_barrier(mem_flags::mem_threadgroup);
for (int start = lo; (start < hi); start += 64) {
  // 116: n = start + tl.arange(0, BLOCK_N)
  // 117: valid = n < hi
  // 118: offs = (first_key + n)[:, None] * D + d[None, :]
  // 119: k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
  int d = 0;
  float t_8[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 4) {
    int n_1 = (start + (k + int(simdgroup_index_in_threadgroup)));
    int d_1 = (int(thread_index_in_simdgroup) * 4);
    int offs_1 = (((first_key + n_1) * 128) + d_1);
    bool valid_1 = (n_1 < hi);
    half t_7_0;
    half t_7_1;
    half t_7_2;
    half t_7_3;
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (valid_1) mf_v = *((const device packed_half4*)((k_ptr + offs_1)));
      t_7_0 = mf_v[0];
      t_7_1 = mf_v[1];
      t_7_2 = mf_v[2];
      t_7_3 = mf_v[3];
    }
    float k_1_0 = static_cast<float>(t_7_0);
    float k_1_1 = static_cast<float>(t_7_1);
    float k_1_2 = static_cast<float>(t_7_2);
    float k_1_3 = static_cast<float>(t_7_3);
    // 120: scores = tl.where(valid, tl.sum(k * q[None, :], axis=1), -float("inf"))
    t_8[k] = (k_1_0 * q_1_smem[(int(thread_index_in_simdgroup) * 4)]);
    t_8[(k + 1)] = (k_1_1 * q_1_smem[((int(thread_index_in_simdgroup) * 4) + 1)]);
    t_8[(k + 2)] = (k_1_2 * q_1_smem[((int(thread_index_in_simdgroup) * 4) + 2)]);
    t_8[(k + 3)] = (k_1_3 * q_1_smem[((int(thread_index_in_simdgroup) * 4) + 3)]);
  }
  float acc_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_2[k] = t_8[(k * 4)];
    acc_2[k] = (acc_2[k] + t_8[((k * 4) + 1)]);
    acc_2[k] = (acc_2[k] + t_8[((k * 4) + 2)]);
    acc_2[k] = (acc_2[k] + t_8[((k * 4) + 3)]);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float partner = simd_shuffle_xor(acc_2[k], ushort(1));
    acc_2[k] = (acc_2[k] + partner);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float partner_1 = simd_shuffle_xor(acc_2[k], ushort(2));
    acc_2[k] = (acc_2[k] + partner_1);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float partner_2 = simd_shuffle_xor(acc_2[k], ushort(4));
    acc_2[k] = (acc_2[k] + partner_2);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float partner_3 = simd_shuffle_xor(acc_2[k], ushort(8));
    acc_2[k] = (acc_2[k] + partner_3);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float partner_4 = simd_shuffle_xor(acc_2[k], ushort(16));
    acc_2[k] = (acc_2[k] + partner_4);
  }
  float m_new[16];
  float alpha[16];
  float p[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int n_2 = (start + ((k * 4) + int(simdgroup_index_in_threadgroup)));
    bool valid_2 = (n_2 < hi);
    float scores = (valid_2 ? acc_2[k] : (-INFINITY));
    // 121: m_new = tl.maximum(m_i, scores)
    m_new[k] = metal::max(m_i[k], scores);
    // 123: alpha = tl.where(m_new == m_i, 1.0, tl.exp(m_i - m_new))
    bool t_9 = (m_new[k] == m_i[k]);
    float t_10 = metal::exp2(metal::fma(m_i[k], 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
    alpha[k] = (t_9 ? 1.0f : t_10);
    // 124: p = tl.where(valid, tl.exp(scores - m_new), 0.0)
    float t_11 = metal::exp2(metal::fma(scores, 1.4426950408889634f, (-(m_new[k] * 1.4426950408889634f))));
    int n_3 = (start + ((k * 4) + int(simdgroup_index_in_threadgroup)));
    bool valid_3 = (n_3 < hi);
    p[k] = (valid_3 ? t_11 : 0.0f);
  }
  // 125: v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
  float acc_3[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 4) {
    int n_4 = (start + (k + int(simdgroup_index_in_threadgroup)));
    int d_2 = (int(thread_index_in_simdgroup) * 4);
    int offs_2 = (((first_key + n_4) * 128) + d_2);
    bool valid_4 = (n_4 < hi);
    half t_12_0;
    half t_12_1;
    half t_12_2;
    half t_12_3;
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (valid_4) mf_v = *((const device packed_half4*)((v_ptr + offs_2)));
      t_12_0 = mf_v[0];
      t_12_1 = mf_v[1];
      t_12_2 = mf_v[2];
      t_12_3 = mf_v[3];
    }
    float v_0 = static_cast<float>(t_12_0);
    float v_1 = static_cast<float>(t_12_1);
    float v_2 = static_cast<float>(t_12_2);
    float v_3 = static_cast<float>(t_12_3);
    // 126: acc = acc * alpha[:, None] + p[:, None] * v
    float t_13_0 = (acc[k] * alpha[(k / 4)]);
    float t_13_1 = (acc[(k + 1)] * alpha[(k / 4)]);
    float t_13_2 = (acc[(k + 2)] * alpha[(k / 4)]);
    float t_13_3 = (acc[(k + 3)] * alpha[(k / 4)]);
    float t_14_0 = (p[(k / 4)] * v_0);
    float t_14_1 = (p[(k / 4)] * v_1);
    float t_14_2 = (p[(k / 4)] * v_2);
    float t_14_3 = (p[(k / 4)] * v_3);
    acc_3[k] = (t_13_0 + t_14_0);
    acc_3[(k + 1)] = (t_13_1 + t_14_1);
    acc_3[(k + 2)] = (t_13_2 + t_14_2);
    acc_3[(k + 3)] = (t_13_3 + t_14_3);
  }
  // 127: l_i = l_i * alpha + p
  float l_i_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float t_15 = (l_i[k] * alpha[k]);
    l_i_2[k] = (t_15 + p[k]);
  }
  float acc_4[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    acc_4[k] = acc_3[k];
  }
  float l_i_3[16];
  float m_new_1[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    l_i_3[k] = l_i_2[k];
    m_new_1[k] = m_new[k];
  }
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    acc[k] = acc_4[k];
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    l_i[k] = l_i_3[k];
    m_i[k] = m_new_1[k];
  }
}
// 129: m = tl.max(m_i, axis=0)
float m[1];
m[0] = m_i[0];
m[0] = metal::max(m[0], m_i[1]);
m[0] = metal::max(m[0], m_i[2]);
m[0] = metal::max(m[0], m_i[3]);
m[0] = metal::max(m[0], m_i[4]);
m[0] = metal::max(m[0], m_i[5]);
m[0] = metal::max(m[0], m_i[6]);
m[0] = metal::max(m[0], m_i[7]);
m[0] = metal::max(m[0], m_i[8]);
m[0] = metal::max(m[0], m_i[9]);
m[0] = metal::max(m[0], m_i[10]);
m[0] = metal::max(m[0], m_i[11]);
m[0] = metal::max(m[0], m_i[12]);
m[0] = metal::max(m[0], m_i[13]);
m[0] = metal::max(m[0], m_i[14]);
m[0] = metal::max(m[0], m_i[15]);
threadgroup float m_smem[4];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (((0 == 0) && (int(simdgroup_index_in_threadgroup) < 4))) {
  m_smem[int(simdgroup_index_in_threadgroup)] = m[0];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
m[0] = m_smem[0];
m[0] = metal::max(m[0], m_smem[1]);
m[0] = metal::max(m[0], m_smem[2]);
m[0] = metal::max(m[0], m_smem[3]);
float m_1 = m[0];
// 130: w = tl.where(m_i == m, 1.0, tl.exp(m_i - m))  # slots without keys (-inf) weigh 0
float w[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  bool t_16 = (m_i[k] == m_1);
  float t_17 = metal::exp2(metal::fma(m_i[k], 1.4426950408889634f, (-(m_1 * 1.4426950408889634f))));
  w[k] = (t_16 ? 1.0f : t_17);
}
// 131: acc = tl.sum(acc * w[:, None], axis=0)
float t_18[64];
#pragma unroll
for (int k = 0; (k < 64); k += 1) {
  t_18[k] = (acc[k] * w[(k / 4)]);
}
float acc_5[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  acc_5[k] = t_18[k];
  acc_5[k] = (acc_5[k] + t_18[(4 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(8 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(12 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(16 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(20 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(24 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(28 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(32 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(36 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(40 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(44 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(48 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(52 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(56 + k)]);
  acc_5[k] = (acc_5[k] + t_18[(60 + k)]);
}
threadgroup float acc_5_smem[512];
threadgroup_barrier(mem_flags::mem_threadgroup);
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  if (((0 == 0) && (int(simdgroup_index_in_threadgroup) < 4))) {
    acc_5_smem[((int(simdgroup_index_in_threadgroup) * 128) + ((int(thread_index_in_simdgroup) * 4) + k))] = acc_5[k];
  }
}
threadgroup_barrier(mem_flags::mem_threadgroup);
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  acc_5[k] = acc_5_smem[((int(thread_index_in_simdgroup) * 4) + k)];
  acc_5[k] = (acc_5[k] + acc_5_smem[(128 + ((int(thread_index_in_simdgroup) * 4) + k))]);
  acc_5[k] = (acc_5[k] + acc_5_smem[(256 + ((int(thread_index_in_simdgroup) * 4) + k))]);
  acc_5[k] = (acc_5[k] + acc_5_smem[(384 + ((int(thread_index_in_simdgroup) * 4) + k))]);
}
// 132: l_i = tl.sum(l_i * w, axis=0)
float t_19[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
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
l_i_4[0] = (l_i_4[0] + t_19[8]);
l_i_4[0] = (l_i_4[0] + t_19[9]);
l_i_4[0] = (l_i_4[0] + t_19[10]);
l_i_4[0] = (l_i_4[0] + t_19[11]);
l_i_4[0] = (l_i_4[0] + t_19[12]);
l_i_4[0] = (l_i_4[0] + t_19[13]);
l_i_4[0] = (l_i_4[0] + t_19[14]);
l_i_4[0] = (l_i_4[0] + t_19[15]);
threadgroup float l_i_4_smem[4];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (((0 == 0) && (int(simdgroup_index_in_threadgroup) < 4))) {
  l_i_4_smem[int(simdgroup_index_in_threadgroup)] = l_i_4[0];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
l_i_4[0] = l_i_4_smem[0];
l_i_4[0] = (l_i_4[0] + l_i_4_smem[1]);
l_i_4[0] = (l_i_4[0] + l_i_4_smem[2]);
l_i_4[0] = (l_i_4[0] + l_i_4_smem[3]);
float l_i_5 = l_i_4[0];
// 137: tl.store(o_ptr + part * D + d, acc)
int t_20 = (part * 128);
decltype(o_ptr) t_21 = (o_ptr + t_20);
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  int d = ((int(thread_index_in_simdgroup) * 4) + k);
  if (((0 == 0) && (int(simdgroup_index_in_threadgroup) == 0))) {
    *((t_21 + d)) = acc_5[k];
  }
}
// 138: tl.store(m_ptr + part, m_i)
decltype(m_ptr) t_22 = (m_ptr + part);
if ((int(thread_index_in_threadgroup) == 0)) {
  *(t_22) = m_1;
}
// 139: tl.store(l_ptr + part, l_i)
decltype(l_ptr) t_23 = (l_ptr + part);
if ((int(thread_index_in_threadgroup) == 0)) {
  *(t_23) = l_i_5;
}
