// 117: return (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M), tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N))
int t = (int(threadgroup_position_in_grid.x) * 32);
int t_1 = (int(threadgroup_position_in_grid.y) * 64);
// 367: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
// 368: for k0 in range(k_lo, k_hi, BLOCK_K):
simdgroup_matrix<float, 8, 8> acc[8];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float acc_1 = 0.0f;
  acc[(k / 2)].thread_elements()[(k % 2)] = acc_1;
}
for (int k0 = 0; (k0 < K); k0 += 32) {
  // 369: rk = k0 + tl.arange(0, BLOCK_K)
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
  uint words[2];
  int rn_1 = (t_1 + ((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2)));
  int kw_1 = (t_2 + ((int(thread_index_in_simdgroup) % 2) * 2));
  bool k_ok_1 = ((kw_1 / 8) < t_3);
  bool mask = ((rn_1 < N) & k_ok_1);
  {
    packed_uint2 mf_v = packed_uint2(uint(0), uint(0));
    if (mask) mf_v = *((const device packed_uint2*)(((wq_ptr + (rn_1 * t_4)) + kw_1)));
    words[0] = mf_v[0];
    words[1] = mf_v[1];
  }
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  float q[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    uint t_5 = (words[(k / 8)] >> static_cast<uint>(((k % 8) * 4)));
    uint t_6 = (t_5 & uint(15));
    q[k] = static_cast<float>(t_6);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_7 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_8[2];
  int groups_1 = ((rn_1 * t_7) + (kw_1 / 8));
  t_8[0] = (mask ? (scales_ptr + groups_1)[0] : half(0.0f));
  t_8[1] = t_8[0];
  float scale[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    scale[k] = static_cast<float>(t_8[k]);
  }
  // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_9[2];
  t_9[0] = (mask ? (biases_ptr + groups_1)[0] : half(0.0f));
  t_9[1] = t_9[0];
  float bias[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    bias[k] = static_cast<float>(t_9[k]);
  }
  // 64: return q * scale + bias, kw, k_ok
  half t_11[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float t_10 = (q[k] * scale[(k / 8)]);
    float w = (t_10 + bias[(k / 8)]);
    // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
    t_11[k] = static_cast<half>(w);
  }
  threadgroup half t_12_smem[2560];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    *((threadgroup packed_half4*)((t_12_smem + ((((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2)) * 40) + (((int(thread_index_in_simdgroup) % 2) * 16) + k))))) = packed_half4(t_11[k], t_11[(k + 1)], t_11[(k + 2)], t_11[(k + 3)]);
  }
  // 371: acc = tl.dot(a, weights_t(a, wq_ptr, scales_ptr, biases_ptr, rn, k0, N, K, GROUP, BITS, BLOCK_N, BLOCK_K), acc)
  threadgroup half a_1_smem[1280];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
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
    simdgroup_matrix<float, 8, 8> frag_b[4];
    #pragma unroll
    for (int i = 0; (i < 2); i += 1) {
      frag_a[i].thread_elements()[0] = static_cast<float>(a_1_smem[((((warp_row + (i * 16)) + frag_row) * 40) + (kk + frag_col))]);
      frag_a[i].thread_elements()[1] = static_cast<float>(a_1_smem[((((warp_row + (i * 16)) + frag_row) * 40) + (kk + (frag_col + 1)))]);
    }
    #pragma unroll
    for (int j = 0; (j < 4); j += 1) {
      frag_b[j].thread_elements()[0] = static_cast<float>(t_12_smem[((kk + frag_row) + (((warp_col + (j * 16)) + frag_col) * 40))]);
      frag_b[j].thread_elements()[1] = static_cast<float>(t_12_smem[((kk + frag_row) + (((warp_col + (j * 16)) + (frag_col + 1)) * 40))]);
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
// 396: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
half t_13[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_13[k] = static_cast<half>(acc[(k / 2)].thread_elements()[(k % 2)]);
}
// 397: mask=(rm[:, None] < M) & (rn[None, :] < N))
// 396: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  int rm = (t + ((((((k / 2) / 4) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
  int rn = (t_1 + ((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
  if (((rm < M) & (rn < N))) {
    *(((out_ptr + (rm * N)) + rn)) = t_13[k];
  }
}
