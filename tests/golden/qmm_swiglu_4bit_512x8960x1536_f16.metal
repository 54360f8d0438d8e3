inline float mf_sigmoid(float x) { return 1.0f / (1.0f + metal::exp(-x)); }

// 117: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
int t = (int(threadgroup_position_in_grid.x) * 32);
int t_1 = (int(threadgroup_position_in_grid.y) * 32);
// 578: gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
// 579: up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
// 580: for k0 in range(0, K, BLOCK_K):
simdgroup_matrix<float, 8, 8> gate[4];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  float gate_1 = 0.0f;
  gate[(k / 2)].thread_elements()[(k % 2)] = gate_1;
}
simdgroup_matrix<float, 8, 8> up[4];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  float up_1 = 0.0f;
  up[(k / 2)].thread_elements()[(k % 2)] = up_1;
}
for (int k0 = 0; (k0 < K); k0 += 32) {
  // 581: rk = k0 + tl.arange(0, BLOCK_K)
  // 123: return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
  int rm = t;
  half a[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rm_1 = (t + ((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))));
    int rk_1 = (k0 + ((int(thread_index_in_simdgroup) % 8) * 4));
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if ((rm_1 < M)) mf_v = *((const device packed_half4*)(((x_ptr + (rm_1 * K)) + rk_1)));
      a[k] = mf_v[0];
      a[(k + 1)] = mf_v[1];
      a[(k + 2)] = mf_v[2];
      a[(k + 3)] = mf_v[3];
    }
  }
  // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
  int t_2 = (k0 / 8);
  // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
  int t_3 = (K / 64);
  // 58: mask = (rows < N)[:, None] & k_ok[None, :]
  // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
  int t_4 = (K / 8);
  int rn = t_1;
  uint words[1];
  int rn_1 = (t_1 + ((int(simdgroup_index_in_threadgroup) * 8) + (int(thread_index_in_simdgroup) / 4)));
  int kw_1 = (t_2 + (int(thread_index_in_simdgroup) % 4));
  bool k_ok_1 = ((kw_1 / 8) < t_3);
  bool mask = ((rn_1 < N) & k_ok_1);
  words[0] = (mask ? ((wg_ptr + (rn_1 * t_4)) + kw_1)[0] : uint(0));
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  float q[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    uint t_5 = (words[0] >> static_cast<uint>((k * 4)));
    uint t_6 = (t_5 & uint(15));
    q[k] = static_cast<float>(t_6);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_7 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_8[1];
  int groups_1 = ((rn_1 * t_7) + (kw_1 / 8));
  t_8[0] = (mask ? (sg_ptr + groups_1)[0] : half(0.0f));
  float scale[1];
  scale[0] = static_cast<float>(t_8[0]);
  // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_9[1];
  t_9[0] = (mask ? (bg_ptr + groups_1)[0] : half(0.0f));
  float bias[1];
  bias[0] = static_cast<float>(t_9[0]);
  // 64: return q * scale + bias, kw, k_ok
  half t_11[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float t_10 = (q[k] * scale[0]);
    float w = (t_10 + bias[0]);
    // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
    t_11[k] = static_cast<half>(w);
  }
  threadgroup half t_12_smem[1280];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  threadgroup half a_1_smem[1280];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    *((threadgroup packed_half4*)((t_12_smem + ((((int(simdgroup_index_in_threadgroup) * 8) + (int(thread_index_in_simdgroup) / 4)) * 40) + (((int(thread_index_in_simdgroup) % 4) * 8) + k))))) = packed_half4(t_11[k], t_11[(k + 1)], t_11[(k + 2)], t_11[(k + 3)]);
    // 583: gate = tl.dot(a, weights_t(a, wg_ptr, sg_ptr, bg_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), gate)
    *((threadgroup packed_half4*)((a_1_smem + ((((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))) * 40) + ((int(thread_index_in_simdgroup) % 8) * 4))))) = packed_half4(a[k], a[(k + 1)], a[(k + 2)], a[(k + 3)]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int frag_row = (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4));
  int frag_col = ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2));
  int warp_row = ((int(simdgroup_index_in_threadgroup) / 2) * 8);
  int warp_col = ((int(simdgroup_index_in_threadgroup) % 2) * 8);
  #pragma unroll
  for (int kk = 0; (kk < 32); kk += 8) {
    simdgroup_matrix<float, 8, 8> frag_a[2];
    simdgroup_matrix<float, 8, 8> frag_b[2];
    #pragma unroll
    for (int i = 0; (i < 2); i += 1) {
      frag_a[i].thread_elements()[0] = static_cast<float>(a_1_smem[((((warp_row + (i * 16)) + frag_row) * 40) + (kk + frag_col))]);
      frag_a[i].thread_elements()[1] = static_cast<float>(a_1_smem[((((warp_row + (i * 16)) + frag_row) * 40) + (kk + (frag_col + 1)))]);
    }
    #pragma unroll
    for (int j = 0; (j < 2); j += 1) {
      frag_b[j].thread_elements()[0] = static_cast<float>(t_12_smem[((kk + frag_row) + (((warp_col + (j * 16)) + frag_col) * 40))]);
      frag_b[j].thread_elements()[1] = static_cast<float>(t_12_smem[((kk + frag_row) + (((warp_col + (j * 16)) + (frag_col + 1)) * 40))]);
    }
    #pragma unroll
    for (int i = 0; (i < 2); i += 1) {
      #pragma unroll
      for (int j = 0; (j < 2); j += 1) {
        simdgroup_multiply_accumulate(gate[((i * 2) + j)], frag_a[i], frag_b[j], gate[((i * 2) + j)]);
      }
    }
  }
  // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
  int t_13 = (k0 / 8);
  // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
  int t_14 = (K / 64);
  // 58: mask = (rows < N)[:, None] & k_ok[None, :]
  // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
  int t_15 = (K / 8);
  uint words_1[1];
  int kw_3 = (t_13 + (int(thread_index_in_simdgroup) % 4));
  bool k_ok_3 = ((kw_3 / 8) < t_14);
  bool mask_2 = ((rn_1 < N) & k_ok_3);
  words_1[0] = (mask_2 ? ((wu_ptr + (rn_1 * t_15)) + kw_3)[0] : uint(0));
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  float q_1[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    uint t_16 = (words_1[0] >> static_cast<uint>((k * 4)));
    uint t_17 = (t_16 & uint(15));
    q_1[k] = static_cast<float>(t_17);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_18 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_19[1];
  int groups_3 = ((rn_1 * t_18) + (kw_3 / 8));
  t_19[0] = (mask_2 ? (su_ptr + groups_3)[0] : half(0.0f));
  float scale_1[1];
  scale_1[0] = static_cast<float>(t_19[0]);
  // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_20[1];
  t_20[0] = (mask_2 ? (bu_ptr + groups_3)[0] : half(0.0f));
  float bias_1[1];
  bias_1[0] = static_cast<float>(t_20[0]);
  // 64: return q * scale + bias, kw, k_ok
  half t_22[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float t_21 = (q_1[k] * scale_1[0]);
    float w_1 = (t_21 + bias_1[0]);
    // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
    t_22[k] = static_cast<half>(w_1);
  }
  threadgroup half t_23_smem[1280];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    *((threadgroup packed_half4*)((t_23_smem + ((((int(simdgroup_index_in_threadgroup) * 8) + (int(thread_index_in_simdgroup) / 4)) * 40) + (((int(thread_index_in_simdgroup) % 4) * 8) + k))))) = packed_half4(t_22[k], t_22[(k + 1)], t_22[(k + 2)], t_22[(k + 3)]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  // 584: up = tl.dot(a, weights_t(a, wu_ptr, su_ptr, bu_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), up)
  int frag_row_1 = (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4));
  int frag_col_1 = ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2));
  int warp_row_1 = ((int(simdgroup_index_in_threadgroup) / 2) * 8);
  int warp_col_1 = ((int(simdgroup_index_in_threadgroup) % 2) * 8);
  #pragma unroll
  for (int kk_1 = 0; (kk_1 < 32); kk_1 += 8) {
    simdgroup_matrix<float, 8, 8> frag_a_1[2];
    simdgroup_matrix<float, 8, 8> frag_b_1[2];
    #pragma unroll
    for (int i_1 = 0; (i_1 < 2); i_1 += 1) {
      frag_a_1[i_1].thread_elements()[0] = static_cast<float>(a_1_smem[((((warp_row_1 + (i_1 * 16)) + frag_row_1) * 40) + (kk_1 + frag_col_1))]);
      frag_a_1[i_1].thread_elements()[1] = static_cast<float>(a_1_smem[((((warp_row_1 + (i_1 * 16)) + frag_row_1) * 40) + (kk_1 + (frag_col_1 + 1)))]);
    }
    #pragma unroll
    for (int j_1 = 0; (j_1 < 2); j_1 += 1) {
      frag_b_1[j_1].thread_elements()[0] = static_cast<float>(t_23_smem[((kk_1 + frag_row_1) + (((warp_col_1 + (j_1 * 16)) + frag_col_1) * 40))]);
      frag_b_1[j_1].thread_elements()[1] = static_cast<float>(t_23_smem[((kk_1 + frag_row_1) + (((warp_col_1 + (j_1 * 16)) + (frag_col_1 + 1)) * 40))]);
    }
    #pragma unroll
    for (int i_1 = 0; (i_1 < 2); i_1 += 1) {
      #pragma unroll
      for (int j_1 = 0; (j_1 < 2); j_1 += 1) {
        simdgroup_multiply_accumulate(up[((i_1 * 2) + j_1)], frag_a_1[i_1], frag_b_1[j_1], up[((i_1 * 2) + j_1)]);
      }
    }
  }
}
// 585: tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
float t_24[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_24[k] = mf_sigmoid(gate[(k / 2)].thread_elements()[(k % 2)]);
}
float t_25[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_25[k] = (gate[(k / 2)].thread_elements()[(k % 2)] * t_24[k]);
}
float t_26[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_26[k] = (t_25[k] * up[(k / 2)].thread_elements()[(k % 2)]);
}
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  half t_27 = static_cast<half>(t_26[k]);
  // 586: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 585: tl.store(out_ptr + rm[:, None] * N + rn[None, :], (gate * tl.sigmoid(gate) * up).to(out_ptr.dtype.element_ty),
  int rm = (t + ((((((k / 2) / 2) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
  int rn = (t_1 + ((((((k / 2) % 2) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
  if (((rm < M) & (rn < N))) {
    *(((out_ptr + (rm * N)) + rn)) = t_27;
  }
}
