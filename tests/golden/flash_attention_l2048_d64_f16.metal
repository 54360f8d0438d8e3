// 85: start_m = tl.program_id(0)
// 86: head = tl.program_id(1)
// 87: S = L + past
int S = (L + past);
// 88: kv_base = (head // GROUP) * S * D
int t = (int(threadgroup_position_in_grid.y) / 4);
int t_1 = (t * S);
int kv_base = (t_1 * 64);
// 89: rm = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
int t_2 = (int(threadgroup_position_in_grid.x) * 32);
// 90: rd = tl.arange(0, D)
// 91: q = tl.load(q_ptr + head * L * D + rm[:, None] * D + rd[None, :], mask=rm[:, None] < L, other=0.0)
int t_3 = (int(threadgroup_position_in_grid.y) * L);
int t_4 = (t_3 * 64);
decltype(q_ptr) t_5 = (q_ptr + t_4);
half q[16];
int t_6 = (S / 32);
int whole = (t_6 * 32);
int t_7 = (int(threadgroup_position_in_grid.x) + 1);
int t_8 = (t_7 * 32);
int t_9 = (t_8 + past);
int hi = metal::min(t_9, S);
int t_10 = (int(threadgroup_position_in_grid.x) * 32);
int t_11 = (t_10 + past);
int t_12 = (t_11 + 1);
int t_13 = (t_12 / 32);
int t_14 = (t_13 * 32);
int whole_1 = metal::min(t_14, whole);
bool t_15 = (0 < hi);
half k_1[16];
bool t_16 = (0 < hi);
half v[16];
#pragma unroll
for (int k = 0; (k < 16); k += 4) {
  int rm = (t_2 + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int rd = ((int(thread_index_in_simdgroup) % 16) * 4);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if ((rm < L)) mf_v = *((const device packed_half4*)(((t_5 + (rm * 64)) + rd)));
    q[k] = mf_v[0];
    q[(k + 1)] = mf_v[1];
    q[(k + 2)] = mf_v[2];
    q[(k + 3)] = mf_v[3];
  }
  // 92: m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
  // 93: l_i = tl.zeros((BLOCK_M,), tl.float32)
  // 94: acc = tl.zeros((BLOCK_M, D), tl.float32)
  // 96: whole = (S // BLOCK_N) * BLOCK_N  # blocks before `whole` are inside the keys and below the diagonal
  // 98: hi = tl.minimum((start_m + 1) * BLOCK_M + past, S)
  // 99: whole = tl.minimum(((start_m * BLOCK_M + past + 1) // BLOCK_N) * BLOCK_N, whole)
  // 100: for start_n in range(0, hi, BLOCK_N):
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  int rn = ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
  int kv = ((kv_base + (rn * 64)) + rd);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (((rn < S) & t_15)) mf_v = *((const device packed_half4*)((k_ptr + kv)));
    k_1[k] = mf_v[0];
    k_1[(k + 1)] = mf_v[1];
    k_1[(k + 2)] = mf_v[2];
    k_1[(k + 3)] = mf_v[3];
  }
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  // 100: for start_n in range(0, hi, BLOCK_N):
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  int rn_1 = ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
  int kv_1 = ((kv_base + (rn_1 * 64)) + rd);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (((rn_1 < S) & t_16)) mf_v = *((const device packed_half4*)((v_ptr + kv_1)));
    v[k] = mf_v[0];
    v[(k + 1)] = mf_v[1];
    v[(k + 2)] = mf_v[2];
    v[(k + 3)] = mf_v[3];
  }
}
// 100: for start_n in range(0, hi, BLOCK_N):
float l_i[1];
l_i[0] = 0.0f;
float acc[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float acc_1 = 0.0f;
  acc[k] = acc_1;
}
float m_i[1];
m_i[0] = (-INFINITY);
half t_17[16];
half t_18[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_17[k] = k_1[k];
  t_18[k] = v[k];
}
int stage = 0;
threadgroup half q_1_smem[2304];
threadgroup_barrier(mem_flags::mem_threadgroup);
#pragma unroll
for (int k = 0; (k < 16); k += 4) {
  *((threadgroup packed_half4*)((q_1_smem + ((((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))) * 72) + ((int(thread_index_in_simdgroup) % 16) * 4))))) = packed_half4(q[k], q[(k + 1)], q[(k + 2)], q[(k + 3)]);
}
threadgroup_barrier(mem_flags::mem_threadgroup);
for (int start_n = 0; (start_n < hi); start_n += 32) {
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  int start_n_next = (start_n + 32);
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 103: k = tl.load(k_ptr + kv, mask=rn[:, None] < S, other=0.0)
  bool t_19 = (start_n_next < hi);
  int rd = 0;
  half k_2[16];
  threadgroup half k_3_smem[4608];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rn_3 = (start_n_next + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int rd_1 = ((int(thread_index_in_simdgroup) % 16) * 4);
    int kv_3 = ((kv_base + (rn_3 * 64)) + rd_1);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (((rn_3 < S) & t_19)) mf_v = *((const device packed_half4*)((k_ptr + kv_3)));
      k_2[k] = mf_v[0];
      k_2[(k + 1)] = mf_v[1];
      k_2[(k + 2)] = mf_v[2];
      k_2[(k + 3)] = mf_v[3];
    }
    // 104: qk = tl.dot(q, tl.trans(k)) * sm_scale
    *((threadgroup packed_half4*)((k_3_smem + ((stage * 2304) + ((((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))) * 72) + ((int(thread_index_in_simdgroup) % 16) * 4)))))) = packed_half4(t_17[k], t_17[(k + 1)], t_17[(k + 2)], t_17[(k + 3)]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int frag_row = (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4));
  int frag_col = ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2));
  int warp_row = (int(simdgroup_index_in_threadgroup) * 8);
  int warp_col = 0;
  simdgroup_matrix<float, 8, 8> frag_c[4];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    frag_c[(k / 2)].thread_elements()[(k % 2)] = 0.0f;
  }
  #pragma unroll
  for (int kk = 0; (kk < 64); kk += 8) {
    simdgroup_matrix<float, 8, 8> frag_a[1];
    simdgroup_matrix<float, 8, 8> frag_b[4];
    #pragma unroll
    for (int i = 0; (i < 1); i += 1) {
      frag_a[i].thread_elements()[0] = static_cast<float>(q_1_smem[((((warp_row + (i * 32)) + frag_row) * 72) + (kk + frag_col))]);
      frag_a[i].thread_elements()[1] = static_cast<float>(q_1_smem[((((warp_row + (i * 32)) + frag_row) * 72) + (kk + (frag_col + 1)))]);
    }
    #pragma unroll
    for (int j = 0; (j < 4); j += 1) {
      frag_b[j].thread_elements()[0] = static_cast<float>(k_3_smem[((stage * 2304) + ((kk + frag_row) + (((warp_col + (j * 8)) + frag_col) * 72)))]);
      frag_b[j].thread_elements()[1] = static_cast<float>(k_3_smem[((stage * 2304) + ((kk + frag_row) + (((warp_col + (j * 8)) + (frag_col + 1)) * 72)))]);
    }
    #pragma unroll
    for (int i = 0; (i < 1); i += 1) {
      #pragma unroll
      for (int j = 0; (j < 4); j += 1) {
        simdgroup_multiply_accumulate(frag_c[((i * 4) + j)], frag_a[i], frag_b[j], frag_c[((i * 4) + j)]);
      }
    }
  }
  float qk[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    qk[k] = (frag_c[(k / 2)].thread_elements()[(k % 2)] * sm_scale);
  }
  // 105: if start_n >= whole:  # only the blocks that cross the diagonal or the end are masked
  bool t_20 = (start_n >= whole_1);
  float qk_1[8];
  if (t_20) {
    // 108: qk = tl.where(rm[:, None] + past >= rn[None, :], qk, float("-inf"))
    int rm = t_2;
    #pragma unroll
    for (int k = 0; (k < 8); k += 1) {
      int rm_1 = (t_2 + ((int(simdgroup_index_in_threadgroup) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
      int rn_5 = (start_n + (((k / 2) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
      float qk_2 = (((rm_1 + past) >= rn_5) ? qk[k] : (-INFINITY));
      // 109: qk = tl.where(rn[None, :] < S, qk, float("-inf"))
      int rn_6 = (start_n + (((k / 2) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
      float qk_3 = ((rn_6 < S) ? qk_2 : (-INFINITY));
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
  float acc_2[1];
  acc_2[0] = qk_1[0];
  acc_2[0] = metal::max(acc_2[0], qk_1[1]);
  acc_2[0] = metal::max(acc_2[0], qk_1[2]);
  acc_2[0] = metal::max(acc_2[0], qk_1[3]);
  acc_2[0] = metal::max(acc_2[0], qk_1[4]);
  acc_2[0] = metal::max(acc_2[0], qk_1[5]);
  acc_2[0] = metal::max(acc_2[0], qk_1[6]);
  acc_2[0] = metal::max(acc_2[0], qk_1[7]);
  float partner = simd_shuffle_xor(acc_2[0], ushort(1));
  acc_2[0] = metal::max(acc_2[0], partner);
  float partner_1 = simd_shuffle_xor(acc_2[0], ushort(8));
  acc_2[0] = metal::max(acc_2[0], partner_1);
  float m_new[1];
  m_new[0] = metal::max(m_i[0], acc_2[0]);
  // 111: alpha = tl.exp(m_i - m_new)
  float alpha[1];
  alpha[0] = metal::exp2(metal::fma(m_i[0], 1.4426950408889634f, (-(m_new[0] * 1.4426950408889634f))));
  // 112: p = tl.exp(qk - m_new[:, None])
  float p[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    p[k] = metal::exp2(metal::fma(qk_1[k], 1.4426950408889634f, (-(m_new[0] * 1.4426950408889634f))));
  }
  // 113: l_i = l_i * alpha + tl.sum(p, 1)
  float t_21[1];
  t_21[0] = (l_i[0] * alpha[0]);
  float acc_3[1];
  acc_3[0] = p[0];
  acc_3[0] = (acc_3[0] + p[1]);
  acc_3[0] = (acc_3[0] + p[2]);
  acc_3[0] = (acc_3[0] + p[3]);
  acc_3[0] = (acc_3[0] + p[4]);
  acc_3[0] = (acc_3[0] + p[5]);
  acc_3[0] = (acc_3[0] + p[6]);
  acc_3[0] = (acc_3[0] + p[7]);
  float partner_2 = simd_shuffle_xor(acc_3[0], ushort(1));
  acc_3[0] = (acc_3[0] + partner_2);
  float partner_3 = simd_shuffle_xor(acc_3[0], ushort(8));
  acc_3[0] = (acc_3[0] + partner_3);
  float l_i_1[1];
  l_i_1[0] = (t_21[0] + acc_3[0]);
  // 115: acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
  float t_22[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_22[k] = (acc[k] * alpha[0]);
  }
  half t_23[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    t_23[k] = static_cast<half>(p[k]);
  }
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  int start_n_next_1 = (start_n + 32);
  // 101: rn = start_n + tl.arange(0, BLOCK_N)
  // 102: kv = kv_base + rn[:, None] * D + rd[None, :]
  // 114: v = tl.load(v_ptr + kv, mask=rn[:, None] < S, other=0.0)
  bool t_24 = (start_n_next_1 < hi);
  half v_1[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rn_8 = (start_n_next_1 + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int rd_2 = ((int(thread_index_in_simdgroup) % 16) * 4);
    int kv_5 = ((kv_base + (rn_8 * 64)) + rd_2);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (((rn_8 < S) & t_24)) mf_v = *((const device packed_half4*)((v_ptr + kv_5)));
      v_1[k] = mf_v[0];
      v_1[(k + 1)] = mf_v[1];
      v_1[(k + 2)] = mf_v[2];
      v_1[(k + 3)] = mf_v[3];
    }
  }
  // 115: acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
  threadgroup half t_25_smem[2560];
  #pragma unroll
  for (int k = 0; (k < 8); k += 2) {
    *((threadgroup packed_half2*)((t_25_smem + ((stage * 1280) + ((((int(simdgroup_index_in_threadgroup) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))) * 40) + ((k * 4) + ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)))))))) = packed_half2(t_23[k], t_23[(k + 1)]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  threadgroup half v_2_smem[4608];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    *((threadgroup packed_half4*)((v_2_smem + ((stage * 2304) + ((((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))) * 72) + ((int(thread_index_in_simdgroup) % 16) * 4)))))) = packed_half4(t_18[k], t_18[(k + 1)], t_18[(k + 2)], t_18[(k + 3)]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int frag_row_1 = (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4));
  int frag_col_1 = ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2));
  int warp_row_1 = (int(simdgroup_index_in_threadgroup) * 8);
  int warp_col_1 = 0;
  simdgroup_matrix<float, 8, 8> frag_c_1[8];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    frag_c_1[(k / 2)].thread_elements()[(k % 2)] = 0.0f;
  }
  #pragma unroll
  for (int kk_1 = 0; (kk_1 < 32); kk_1 += 8) {
    simdgroup_matrix<float, 8, 8> frag_a_1[1];
    simdgroup_matrix<float, 8, 8> frag_b_1[8];
    #pragma unroll
    for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
      frag_a_1[i_1].thread_elements()[0] = static_cast<float>(t_25_smem[((stage * 1280) + ((((warp_row_1 + (i_1 * 32)) + frag_row_1) * 40) + (kk_1 + frag_col_1)))]);
      frag_a_1[i_1].thread_elements()[1] = static_cast<float>(t_25_smem[((stage * 1280) + ((((warp_row_1 + (i_1 * 32)) + frag_row_1) * 40) + (kk_1 + (frag_col_1 + 1))))]);
    }
    #pragma unroll
    for (int j_1 = 0; (j_1 < 8); j_1 += 1) {
      frag_b_1[j_1].thread_elements()[0] = static_cast<float>(v_2_smem[((stage * 2304) + (((kk_1 + frag_row_1) * 72) + ((warp_col_1 + (j_1 * 8)) + frag_col_1)))]);
      frag_b_1[j_1].thread_elements()[1] = static_cast<float>(v_2_smem[((stage * 2304) + (((kk_1 + frag_row_1) * 72) + ((warp_col_1 + (j_1 * 8)) + (frag_col_1 + 1))))]);
    }
    #pragma unroll
    for (int i_1 = 0; (i_1 < 1); i_1 += 1) {
      #pragma unroll
      for (int j_1 = 0; (j_1 < 8); j_1 += 1) {
        simdgroup_multiply_accumulate(frag_c_1[((i_1 * 8) + j_1)], frag_a_1[i_1], frag_b_1[j_1], frag_c_1[((i_1 * 8) + j_1)]);
      }
    }
  }
  float acc_4[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_4[k] = (t_22[k] + frag_c_1[(k / 2)].thread_elements()[(k % 2)]);
  }
  float l_i_2[1];
  l_i_2[0] = l_i_1[0];
  float acc_5[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_5[k] = acc_4[k];
  }
  float m_new_1[1];
  m_new_1[0] = m_new[0];
  half k_4[16];
  half v_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    k_4[k] = k_2[k];
    v_3[k] = v_1[k];
  }
  l_i[0] = l_i_2[0];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc[k] = acc_5[k];
  }
  m_i[0] = m_new_1[0];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_17[k] = k_4[k];
    t_18[k] = v_3[k];
  }
  stage = ((stage < 1) ? (stage + 1) : (stage - 1));
}
// 117: tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
int t_26 = (int(threadgroup_position_in_grid.y) * L);
int t_27 = (t_26 * 64);
decltype(o_ptr) t_28 = (o_ptr + t_27);
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float t_29 = (acc[k] / l_i[0]);
  half t_30 = static_cast<half>(t_29);
  // 118: mask=rm[:, None] < L)
  // 117: tl.store(o_ptr + head * L * D + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
  int rm = (t_2 + ((int(simdgroup_index_in_threadgroup) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
  int rd = (((k / 2) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2)));
  if ((rm < L)) {
    *(((t_28 + (rm * 64)) + rd)) = t_30;
  }
}
