// 72: head = tl.program_id(0)
// 73: split = tl.program_id(1)
// 74: part = head * tl.num_programs(1) + split
int t = (int(threadgroup_position_in_grid.x) * int(threadgroups_per_grid.y));
int part = (t + int(threadgroup_position_in_grid.y));
// 75: kv_head = head // GROUP
int kv_head = (int(threadgroup_position_in_grid.x) / 4);
// 76: d = tl.arange(0, D)
// 77: q = tl.load(q_ptr + head * D + d).to(tl.float32) * scale
int t_1 = (int(threadgroup_position_in_grid.x) * 128);
decltype(q_ptr) t_2 = (q_ptr + t_1);
half t_3[1];
t_3[0] = (t_2 + int(thread_index_in_threadgroup))[0];
float t_4[1];
t_4[0] = static_cast<float>(t_3[0]);
float q[1];
q[0] = (t_4[0] * scale);
// 80: acc = tl.zeros((D,), dtype=tl.float32)
// 81: lo = split * SPLIT
int lo = (int(threadgroup_position_in_grid.y) * SPLIT);
// 82: hi = tl.minimum(lo + SPLIT, S)
int t_5 = (lo + SPLIT);
int hi = metal::min(t_5, S);
// 83: for start in range(lo, hi, BLOCK_N):
float acc[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float acc_1 = 0.0f;
  acc[k] = acc_1;
}
float l_i;
l_i = 0.0f;
float m_i;
m_i = (-INFINITY);
threadgroup float q_1_smem[128];
threadgroup_barrier(mem_flags::mem_threadgroup);
q_1_smem[int(thread_index_in_threadgroup)] = q[0];
threadgroup_barrier(mem_flags::mem_threadgroup);
for (int start = lo; (start < hi); start += 64) {
  // 84: n = start + tl.arange(0, BLOCK_N)
  // 85: valid = n < hi
  // 86: offs = (kv_head * S + n)[:, None] * D + d[None, :]
  int t_6 = (kv_head * S);
  // 87: k = tl.load(k_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
  int d = 0;
  half t_7[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 4) {
    int n_1 = (start + (k + int(simdgroup_index_in_threadgroup)));
    int d_1 = (int(thread_index_in_simdgroup) * 4);
    int offs_1 = (((t_6 + n_1) * 128) + d_1);
    bool valid_1 = (n_1 < hi);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (valid_1) mf_v = *((const device packed_half4*)((k_ptr + offs_1)));
      t_7[k] = mf_v[0];
      t_7[(k + 1)] = mf_v[1];
      t_7[(k + 2)] = mf_v[2];
      t_7[(k + 3)] = mf_v[3];
    }
  }
  float k_1[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    k_1[k] = static_cast<float>(t_7[k]);
  }
  // 88: scores = tl.where(valid, tl.sum(k * q[None, :], axis=1), -float("inf"))
  float t_8[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    t_8[k] = (k_1[k] * q_1_smem[((int(thread_index_in_simdgroup) * 4) + (k % 4))]);
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
  float scores[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int n_2 = (start + ((k * 4) + int(simdgroup_index_in_threadgroup)));
    bool valid_2 = (n_2 < hi);
    scores[k] = (valid_2 ? acc_2[k] : (-INFINITY));
  }
  // 89: m_new = tl.maximum(m_i, tl.max(scores, axis=0))
  float acc_3[1];
  acc_3[0] = scores[0];
  acc_3[0] = metal::max(acc_3[0], scores[1]);
  acc_3[0] = metal::max(acc_3[0], scores[2]);
  acc_3[0] = metal::max(acc_3[0], scores[3]);
  acc_3[0] = metal::max(acc_3[0], scores[4]);
  acc_3[0] = metal::max(acc_3[0], scores[5]);
  acc_3[0] = metal::max(acc_3[0], scores[6]);
  acc_3[0] = metal::max(acc_3[0], scores[7]);
  acc_3[0] = metal::max(acc_3[0], scores[8]);
  acc_3[0] = metal::max(acc_3[0], scores[9]);
  acc_3[0] = metal::max(acc_3[0], scores[10]);
  acc_3[0] = metal::max(acc_3[0], scores[11]);
  acc_3[0] = metal::max(acc_3[0], scores[12]);
  acc_3[0] = metal::max(acc_3[0], scores[13]);
  acc_3[0] = metal::max(acc_3[0], scores[14]);
  acc_3[0] = metal::max(acc_3[0], scores[15]);
  threadgroup float acc_3_smem[4];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (((0 == 0) && (int(simdgroup_index_in_threadgroup) < 4))) {
    acc_3_smem[int(simdgroup_index_in_threadgroup)] = acc_3[0];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  acc_3[0] = acc_3_smem[0];
  acc_3[0] = metal::max(acc_3[0], acc_3_smem[1]);
  acc_3[0] = metal::max(acc_3[0], acc_3_smem[2]);
  acc_3[0] = metal::max(acc_3[0], acc_3_smem[3]);
  float t_9 = acc_3[0];
  float m_new = metal::max(m_i, t_9);
  // 90: alpha = tl.exp(m_i - m_new)
  float t_10 = (m_i - m_new);
  float alpha = metal::exp(t_10);
  // 91: p = tl.exp(scores - m_new)
  float t_11[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_11[k] = (scores[k] - m_new);
  }
  float p[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    p[k] = metal::exp(t_11[k]);
  }
  // 92: v = tl.load(v_ptr + offs, mask=valid[:, None], other=0.0).to(tl.float32)
  half t_12[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 4) {
    int n_3 = (start + (k + int(simdgroup_index_in_threadgroup)));
    int d_2 = (int(thread_index_in_simdgroup) * 4);
    int offs_2 = (((t_6 + n_3) * 128) + d_2);
    bool valid_3 = (n_3 < hi);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (valid_3) mf_v = *((const device packed_half4*)((v_ptr + offs_2)));
      t_12[k] = mf_v[0];
      t_12[(k + 1)] = mf_v[1];
      t_12[(k + 2)] = mf_v[2];
      t_12[(k + 3)] = mf_v[3];
    }
  }
  float v[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    v[k] = static_cast<float>(t_12[k]);
  }
  // 93: acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
  float t_13[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    t_13[k] = (acc[k] * alpha);
  }
  float t_14[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    t_14[k] = (p[(k / 4)] * v[k]);
  }
  float acc_4[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_4[k] = t_14[k];
    acc_4[k] = (acc_4[k] + t_14[(4 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(8 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(12 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(16 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(20 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(24 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(28 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(32 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(36 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(40 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(44 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(48 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(52 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(56 + k)]);
    acc_4[k] = (acc_4[k] + t_14[(60 + k)]);
  }
  threadgroup float acc_4_smem[512];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    if (((0 == 0) && (int(simdgroup_index_in_threadgroup) < 4))) {
      acc_4_smem[((int(simdgroup_index_in_threadgroup) * 128) + ((int(thread_index_in_simdgroup) * 4) + k))] = acc_4[k];
    }
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_4[k] = acc_4_smem[((int(thread_index_in_simdgroup) * 4) + k)];
    acc_4[k] = (acc_4[k] + acc_4_smem[(128 + ((int(thread_index_in_simdgroup) * 4) + k))]);
    acc_4[k] = (acc_4[k] + acc_4_smem[(256 + ((int(thread_index_in_simdgroup) * 4) + k))]);
    acc_4[k] = (acc_4[k] + acc_4_smem[(384 + ((int(thread_index_in_simdgroup) * 4) + k))]);
  }
  float acc_5[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_5[k] = (t_13[k] + acc_4[k]);
  }
  // 94: l_i = l_i * alpha + tl.sum(p, axis=0)
  float t_15 = (l_i * alpha);
  float acc_6[1];
  acc_6[0] = p[0];
  acc_6[0] = (acc_6[0] + p[1]);
  acc_6[0] = (acc_6[0] + p[2]);
  acc_6[0] = (acc_6[0] + p[3]);
  acc_6[0] = (acc_6[0] + p[4]);
  acc_6[0] = (acc_6[0] + p[5]);
  acc_6[0] = (acc_6[0] + p[6]);
  acc_6[0] = (acc_6[0] + p[7]);
  acc_6[0] = (acc_6[0] + p[8]);
  acc_6[0] = (acc_6[0] + p[9]);
  acc_6[0] = (acc_6[0] + p[10]);
  acc_6[0] = (acc_6[0] + p[11]);
  acc_6[0] = (acc_6[0] + p[12]);
  acc_6[0] = (acc_6[0] + p[13]);
  acc_6[0] = (acc_6[0] + p[14]);
  acc_6[0] = (acc_6[0] + p[15]);
  threadgroup float acc_6_smem[4];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (((0 == 0) && (int(simdgroup_index_in_threadgroup) < 4))) {
    acc_6_smem[int(simdgroup_index_in_threadgroup)] = acc_6[0];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  acc_6[0] = acc_6_smem[0];
  acc_6[0] = (acc_6[0] + acc_6_smem[1]);
  acc_6[0] = (acc_6[0] + acc_6_smem[2]);
  acc_6[0] = (acc_6[0] + acc_6_smem[3]);
  float t_16 = acc_6[0];
  float l_i_1 = (t_15 + t_16);
  float acc_7[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_7[k] = acc_5[k];
  }
  float l_i_2;
  l_i_2 = l_i_1;
  float m_new_1;
  m_new_1 = m_new;
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc[k] = acc_7[k];
  }
  l_i = l_i_2;
  m_i = m_new_1;
}
// 96: tl.store(o_ptr + part * D + d, acc)
int t_17 = (part * 128);
decltype(o_ptr) t_18 = (o_ptr + t_17);
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  int d = ((int(thread_index_in_simdgroup) * 4) + k);
  if (((0 == 0) && (int(simdgroup_index_in_threadgroup) == 0))) {
    *((t_18 + d)) = acc[k];
  }
}
// 97: tl.store(m_ptr + part, m_i)
decltype(m_ptr) t_19 = (m_ptr + part);
if ((int(thread_index_in_threadgroup) == 0)) {
  *(t_19) = m_i;
}
// 98: tl.store(l_ptr + part, l_i)
decltype(l_ptr) t_20 = (l_ptr + part);
if ((int(thread_index_in_threadgroup) == 0)) {
  *(t_20) = l_i;
}
