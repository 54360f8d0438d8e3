// 120: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
int t = (int(threadgroup_position_in_grid.x) * 32);
int t_1 = (int(threadgroup_position_in_grid.y) * 64);
// 126: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
// 127: for k0 in range(0, K, BLOCK_K):
simdgroup_matrix<float, 8, 8> acc[8];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float acc_1 = 0.0f;
  acc[(k / 2)].thread_elements()[(k % 2)] = acc_1;
}
for (int k0 = 0; (k0 < K); k0 += 32) {
  // 128: rk = k0 + tl.arange(0, BLOCK_K)
  // 126: return tl.load(ptr + rows[:, None] * n_cols + cols[None, :], mask=(rows[:, None] < n_rows) & (cols[None, :] < n_cols),
  int rm = t;
  half a[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rm_1 = (t + ((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))));
    int rk_1 = (k0 + ((int(thread_index_in_simdgroup) % 8) * 4));
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (((rm_1 < M) & (rk_1 < K))) mf_v = *((const device packed_half4*)(((x_ptr + (rm_1 * K)) + rk_1)));
      a[k] = mf_v[0];
      a[(k + 1)] = mf_v[1];
      a[(k + 2)] = mf_v[2];
      a[(k + 3)] = mf_v[3];
    }
  }
  // 130: w_mask = (rk[:, None] < K) & (rn[None, :] < N)
  // 131: words = tl.load(wq_ptr + rn[None, :] * (K // PER_WORD) + (rk // PER_WORD)[:, None], mask=w_mask, other=0)
  int t_2 = (K / 8);
  int rn = t_1;
  uint words[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int rn_1 = (t_1 + (((k % 2) * 32) + int(thread_index_in_simdgroup)));
    int rk_2 = (k0 + (((k / 2) * 4) + int(simdgroup_index_in_threadgroup)));
    bool w_mask = ((rk_2 < K) & (rn_1 < N));
    words[k] = (w_mask ? ((wq_ptr + (rn_1 * t_2)) + (rk_2 / 8))[0] : uint(0));
  }
  // 132: q = ((words >> ((rk % PER_WORD) * BITS)[:, None]) & ((1 << BITS) - 1)).to(tl.float32)
  uint t_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int rk_3 = (k0 + (((k / 2) * 4) + int(simdgroup_index_in_threadgroup)));
    t_3[k] = (words[k] >> static_cast<uint>(((rk_3 % 8) * 4)));
  }
  uint t_4[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_4[k] = (t_3[k] & uint(15));
  }
  float q[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    q[k] = static_cast<float>(t_4[k]);
  }
  // 133: groups = rn[None, :] * (K // GROUP) + (rk // GROUP)[:, None]
  int t_5 = (K / 64);
  // 134: scale = tl.load(scales_ptr + groups, mask=w_mask, other=0.0).to(tl.float32)
  half t_6[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int rn_2 = (t_1 + (((k % 2) * 32) + int(thread_index_in_simdgroup)));
    int rk_4 = (k0 + (((k / 2) * 4) + int(simdgroup_index_in_threadgroup)));
    int groups_1 = ((rn_2 * t_5) + (rk_4 / 64));
    bool w_mask = ((rk_4 < K) & (rn_2 < N));
    t_6[k] = (w_mask ? (scales_ptr + groups_1)[0] : half(0.0f));
  }
  float scale[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    scale[k] = static_cast<float>(t_6[k]);
  }
  // 135: bias = tl.load(biases_ptr + groups, mask=w_mask, other=0.0).to(tl.float32)
  half t_7[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int rn_3 = (t_1 + (((k % 2) * 32) + int(thread_index_in_simdgroup)));
    int rk_5 = (k0 + (((k / 2) * 4) + int(simdgroup_index_in_threadgroup)));
    int groups_2 = ((rn_3 * t_5) + (rk_5 / 64));
    bool w_mask = ((rk_5 < K) & (rn_3 < N));
    t_7[k] = (w_mask ? (biases_ptr + groups_2)[0] : half(0.0f));
  }
  float bias[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    bias[k] = static_cast<float>(t_7[k]);
  }
  // 136: acc = tl.dot(a, (scale * q + bias).to(a.dtype), acc)
  float t_8[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_8[k] = (scale[k] * q[k]);
  }
  float t_9[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_9[k] = (t_8[k] + bias[k]);
  }
  half t_10[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_10[k] = static_cast<half>(t_9[k]);
  }
  threadgroup half a_1_smem[1280];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    *((threadgroup packed_half4*)((a_1_smem + ((((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))) * 40) + ((int(thread_index_in_simdgroup) % 8) * 4))))) = packed_half4(a[k], a[(k + 1)], a[(k + 2)], a[(k + 3)]);
  }
  threadgroup half t_11_smem[2304];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_11_smem[(((((k / 2) * 4) + int(simdgroup_index_in_threadgroup)) * 72) + (((k % 2) * 32) + int(thread_index_in_simdgroup)))] = t_10[k];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int frag_row = (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4));
  int frag_col = ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2));
  int warp_row = ((int(simdgroup_index_in_threadgroup) / 2) * 8);
  int warp_col = ((int(simdgroup_index_in_threadgroup) % 2) * 8);
  #pragma unroll
  for (int kk = 0; (kk < 32); kk += 8) {
    simdgroup_matrix<float, 8, 8> frag_a[2];
    simdgroup_matrix<float, 8, 8> frag_b[4];
    #pragma unroll
    for (int i = 0; (i < 2); i += 1) {
      frag_a[i].thread_elements()[0] = static_cast<float>(a_1_smem[((((warp_row + (i * 16)) + frag_row) * 40) + (kk + frag_col))]);
      frag_a[i].thread_elements()[1] = static_cast<float>(a_1_smem[((((warp_row + (i * 16)) + frag_row) * 40) + (kk + (frag_col + 1)))]);
    }
    #pragma unroll
    for (int j = 0; (j < 4); j += 1) {
      frag_b[j].thread_elements()[0] = static_cast<float>(t_11_smem[(((kk + frag_row) * 72) + ((warp_col + (j * 16)) + frag_col))]);
      frag_b[j].thread_elements()[1] = static_cast<float>(t_11_smem[(((kk + frag_row) * 72) + ((warp_col + (j * 16)) + (frag_col + 1)))]);
    }
    #pragma unroll
    for (int i = 0; (i < 2); i += 1) {
      #pragma unroll
      for (int j = 0; (j < 4); j += 1) {
        simdgroup_multiply_accumulate(acc[((i * 4) + j)], frag_a[i], frag_b[j], acc[((i * 4) + j)]);
      }
    }
  }
}
// 137: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
half t_12[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_12[k] = static_cast<half>(acc[(k / 2)].thread_elements()[(k % 2)]);
}
// 138: mask=(rm[:, None] < M) & (rn[None, :] < N))
// 137: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  int rm = (t + ((((((k / 2) / 4) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
  int rn = (t_1 + ((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
  if (((rm < M) & (rn < N))) {
    *(((out_ptr + (rm * N)) + rn)) = t_12[k];
  }
}
