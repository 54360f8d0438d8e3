// 516: q_tiles = tl.cdiv(NQ, BLOCK_N)
int t = (NQ + 64);
int t_1 = (t - 1);
int q_tiles = (t_1 / 64);
// 517: kv_tiles = tl.cdiv(NKV, BLOCK_N)
int t_2 = (NKV + 64);
int t_3 = (t_2 - 1);
int kv_tiles = (t_3 / 64);
// 518: tile = tl.program_id(1)
// 519: if tile < q_tiles:  # the weights chosen here; each output written where its pointer is the argument's
bool t_4 = (int(threadgroup_position_in_grid.y) < q_tiles);
decltype(wq_ptr) wq;
decltype(sq_ptr) sc;
decltype(bq_ptr) bi;
int n;
int col;
if (t_4) {
  decltype(wq_ptr) wq_ptr_1;
  wq_ptr_1 = wq_ptr;
  decltype(sq_ptr) sq_ptr_1;
  sq_ptr_1 = sq_ptr;
  decltype(bq_ptr) bq_ptr_1;
  bq_ptr_1 = bq_ptr;
  int NQ_1;
  NQ_1 = NQ;
  int tile;
  tile = int(threadgroup_position_in_grid.y);
  wq = wq_ptr_1;
  sc = sq_ptr_1;
  bi = bq_ptr_1;
  n = NQ_1;
  col = tile;
} else {
  // 521: elif tile < q_tiles + kv_tiles:
  int t_5 = (q_tiles + kv_tiles);
  bool t_6 = (int(threadgroup_position_in_grid.y) < t_5);
  decltype(wk_ptr) wq_1;
  decltype(sk_ptr) sc_1;
  decltype(bk_ptr) bi_1;
  int n_1;
  int col_1;
  if (t_6) {
    // 522: wq, sc, bi, n, col = wk_ptr, sk_ptr, bk_ptr, NKV, tile - q_tiles
    int col_2 = (int(threadgroup_position_in_grid.y) - q_tiles);
    decltype(wk_ptr) wk_ptr_1;
    wk_ptr_1 = wk_ptr;
    decltype(sk_ptr) sk_ptr_1;
    sk_ptr_1 = sk_ptr;
    decltype(bk_ptr) bk_ptr_1;
    bk_ptr_1 = bk_ptr;
    int NKV_1;
    NKV_1 = NKV;
    int col_3;
    col_3 = col_2;
    wq_1 = wk_ptr_1;
    sc_1 = sk_ptr_1;
    bi_1 = bk_ptr_1;
    n_1 = NKV_1;
    col_1 = col_3;
  } else {
    // 524: wq, sc, bi, n, col = wv_ptr, sv_ptr, bv_ptr, NKV, tile - q_tiles - kv_tiles
    int t_7 = (int(threadgroup_position_in_grid.y) - q_tiles);
    int col_4 = (t_7 - kv_tiles);
    decltype(wv_ptr) wv_ptr_1;
    wv_ptr_1 = wv_ptr;
    decltype(sv_ptr) sv_ptr_1;
    sv_ptr_1 = sv_ptr;
    decltype(bv_ptr) bv_ptr_1;
    bv_ptr_1 = bv_ptr;
    int NKV_2;
    NKV_2 = NKV;
    int col_5;
    col_5 = col_4;
    wq_1 = wv_ptr_1;
    sc_1 = sv_ptr_1;
    bi_1 = bv_ptr_1;
    n_1 = NKV_2;
    col_1 = col_5;
  }
  decltype(wk_ptr) wq_2;
  wq_2 = wq_1;
  decltype(sk_ptr) sc_2;
  sc_2 = sc_1;
  decltype(bk_ptr) bi_2;
  bi_2 = bi_1;
  int n_2;
  n_2 = n_1;
  int col_6;
  col_6 = col_1;
  wq = wq_2;
  sc = sc_2;
  bi = bi_2;
  n = n_2;
  col = col_6;
}
// 525: rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
int t_8 = (int(threadgroup_position_in_grid.x) * 32);
// 526: acc = qmm_product(x_ptr, wq, sc, bi, rm, col * BLOCK_N + tl.arange(0, BLOCK_N), 0, K, M, n, K, GROUP, BITS,
int t_9 = (col * 64);
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
  half a[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rm_1 = (t_8 + ((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))));
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
  int t_10 = (k0 / 8);
  // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
  int t_11 = (K / 64);
  // 58: mask = (rows < N)[:, None] & k_ok[None, :]
  // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
  int t_12 = (K / 8);
  uint words[2];
  int kw_1 = (t_10 + ((int(thread_index_in_simdgroup) % 2) * 2));
  bool k_ok_1 = ((kw_1 / 8) < t_11);
  bool mask = (((t_9 + ((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2))) < n) & k_ok_1);
  {
    packed_uint2 mf_v = packed_uint2(uint(0), uint(0));
    if (mask) mf_v = *((const device packed_uint2*)(((wq + ((t_9 + ((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2))) * t_12)) + kw_1)));
    words[0] = mf_v[0];
    words[1] = mf_v[1];
  }
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  float q[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    uint t_13 = (words[(k / 8)] >> static_cast<uint>(((k % 8) * 4)));
    uint t_14 = (t_13 & uint(15));
    q[k] = static_cast<float>(t_14);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_15 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_16[2];
  int groups_1 = (((t_9 + ((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2))) * t_15) + (kw_1 / 8));
  t_16[0] = (mask ? (sc + groups_1)[0] : half(0.0f));
  t_16[1] = t_16[0];
  float scale[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    scale[k] = static_cast<float>(t_16[k]);
  }
  // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_17[2];
  t_17[0] = (mask ? (bi + groups_1)[0] : half(0.0f));
  t_17[1] = t_17[0];
  float bias[2];
  #pragma unroll
  for (int k = 0; (k < 2); k += 1) {
    bias[k] = static_cast<float>(t_17[k]);
  }
  // 64: return q * scale + bias, kw, k_ok
  half t_19[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float t_18 = (q[k] * scale[(k / 8)]);
    float w = (t_18 + bias[(k / 8)]);
    // 382: return tl.trans(tl.reshape(w, (BLOCK_N, BLOCK_K)).to(a.dtype))
    t_19[k] = static_cast<half>(w);
  }
  threadgroup half t_20_smem[2560];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    *((threadgroup packed_half4*)((t_20_smem + ((((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2)) * 40) + (((int(thread_index_in_simdgroup) % 2) * 16) + k))))) = packed_half4(t_19[k], t_19[(k + 1)], t_19[(k + 2)], t_19[(k + 3)]);
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
      frag_b[j].thread_elements()[0] = static_cast<float>(t_20_smem[((kk + frag_row) + (((warp_col + (j * 16)) + frag_col) * 40))]);
      frag_b[j].thread_elements()[1] = static_cast<float>(t_20_smem[((kk + frag_row) + (((warp_col + (j * 16)) + (frag_col + 1)) * 40))]);
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
// 528: if tile < q_tiles:
bool t_21 = (int(threadgroup_position_in_grid.y) < q_tiles);
if (t_21) {
  // 540: rn = col * BLOCK_N + tl.arange(0, BLOCK_N)
  int t_22 = (int(threadgroup_position_in_grid.y) * 64);
  // 542: acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
  half t_23[1];
  int rn_1 = (t_22 + (int(thread_index_in_threadgroup) % 64));
  t_23[0] = ((rn_1 < NQ) ? (qb_ptr + rn_1)[0] : half(0.0f));
  float t_24[1];
  t_24[0] = static_cast<float>(t_23[0]);
  threadgroup float t_25_smem[64];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if ((int(thread_index_in_threadgroup) < 64)) {
    t_25_smem[(int(thread_index_in_threadgroup) % 64)] = t_24[0];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float acc_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_2[k] = (acc[(k / 2)].thread_elements()[(k % 2)] + t_25_smem[((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2)))]);
  }
  // 543: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
  half t_26[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_26[k] = static_cast<half>(acc_2[k]);
  }
  // 544: mask=(rm[:, None] < M) & (rn[None, :] < N))
  // 543: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
  threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    int rm_2 = (t_8 + ((((((k / 2) / 4) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
    int rn_2 = (t_22 + ((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
    if (((rm_2 < M) & (rn_2 < NQ))) {
      *(((q_ptr + (rm_2 * NQ)) + rn_2)) = t_26[k];
    }
  }
} else {
  // 530: elif tile < q_tiles + kv_tiles:
  int t_27 = (q_tiles + kv_tiles);
  bool t_28 = (int(threadgroup_position_in_grid.y) < t_27);
  if (t_28) {
    // 531: projection_out(acc, k_ptr, kb_ptr, rm, tile - q_tiles, M, NKV, BLOCK_N, BIAS)
    int t_29 = (int(threadgroup_position_in_grid.y) - q_tiles);
    // 540: rn = col * BLOCK_N + tl.arange(0, BLOCK_N)
    int t_30 = (t_29 * 64);
    // 542: acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    half t_31[1];
    int rn_4 = (t_30 + (int(thread_index_in_threadgroup) % 64));
    t_31[0] = ((rn_4 < NKV) ? (kb_ptr + rn_4)[0] : half(0.0f));
    float t_32[1];
    t_32[0] = static_cast<float>(t_31[0]);
    threadgroup float t_33_smem[64];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if ((int(thread_index_in_threadgroup) < 64)) {
      t_33_smem[(int(thread_index_in_threadgroup) % 64)] = t_32[0];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float acc_3[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      acc_3[k] = (acc[(k / 2)].thread_elements()[(k % 2)] + t_33_smem[((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2)))]);
    }
    // 543: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
    half t_34[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_34[k] = static_cast<half>(acc_3[k]);
    }
    // 544: mask=(rm[:, None] < M) & (rn[None, :] < N))
    // 543: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
    threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      int rm_3 = (t_8 + ((((((k / 2) / 4) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
      int rn_5 = (t_30 + ((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
      if (((rm_3 < M) & (rn_5 < NKV))) {
        *(((k_ptr + (rm_3 * NKV)) + rn_5)) = t_34[k];
      }
    }
  } else {
    // 533: projection_out(acc, v_ptr, vb_ptr, rm, tile - q_tiles - kv_tiles, M, NKV, BLOCK_N, BIAS)
    int t_35 = (int(threadgroup_position_in_grid.y) - q_tiles);
    int t_36 = (t_35 - kv_tiles);
    // 540: rn = col * BLOCK_N + tl.arange(0, BLOCK_N)
    int t_37 = (t_36 * 64);
    // 542: acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    half t_38[1];
    int rn_7 = (t_37 + (int(thread_index_in_threadgroup) % 64));
    t_38[0] = ((rn_7 < NKV) ? (vb_ptr + rn_7)[0] : half(0.0f));
    float t_39[1];
    t_39[0] = static_cast<float>(t_38[0]);
    threadgroup float t_40_smem[64];
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if ((int(thread_index_in_threadgroup) < 64)) {
      t_40_smem[(int(thread_index_in_threadgroup) % 64)] = t_39[0];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float acc_4[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      acc_4[k] = (acc[(k / 2)].thread_elements()[(k % 2)] + t_40_smem[((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2)))]);
    }
    // 543: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
    half t_41[16];
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      t_41[k] = static_cast<half>(acc_4[k]);
    }
    // 544: mask=(rm[:, None] < M) & (rn[None, :] < N))
    // 543: tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
    threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
    #pragma unroll
    for (int k = 0; (k < 16); k += 1) {
      int rm_4 = (t_8 + ((((((k / 2) / 4) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
      int rn_8 = (t_37 + ((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
      if (((rm_4 < M) & (rn_8 < NKV))) {
        *(((v_ptr + (rm_4 * NKV)) + rn_8)) = t_41[k];
      }
    }
  }
}
