// 236: block = tl.program_id(0)
// 237: q_blocks = tl.cdiv(NQ, BLOCK_N)
int t = (NQ + 8);
int t_1 = (t - 1);
int q_blocks = (t_1 / 8);
// 238: kv_blocks = tl.cdiv(NKV, BLOCK_N)
int t_2 = (NKV + 8);
int t_3 = (t_2 - 1);
int kv_blocks = (t_3 / 8);
// 242: if block < q_blocks:
bool t_4 = (int(threadgroup_position_in_grid.x) < q_blocks);
if (t_4) {
  // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
  int t_5 = (int(threadgroup_position_in_grid.x) * 8);
  // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
  // 126: for k0 in range(0, K, BLOCK_K):
  float acc[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float acc_1 = 0.0f;
    acc[k] = acc_1;
  }
  for (int k0 = 0; (k0 < K); k0 += 512) {
    // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
    int t_6 = (k0 / 8);
    // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
    int t_7 = (K / 64);
    // 58: mask = (rows < N)[:, None] & k_ok[None, :]
    // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
    int t_8 = (K / 8);
    uint words[4];
    int rows_1 = (t_5 + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
    int kw_1 = (t_6 + ((int(thread_index_in_simdgroup) % 16) * 4));
    bool k_ok_1 = ((kw_1 / 8) < t_7);
    bool mask = ((rows_1 < NQ) & k_ok_1);
    {
      packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
      if (mask) mf_v = *((const device packed_uint4*)(((wq_ptr + (rows_1 * t_8)) + kw_1)));
      words[0] = mf_v[0];
      words[1] = mf_v[1];
      words[2] = mf_v[2];
      words[3] = mf_v[3];
    }
    // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
    float q[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      uint t_9 = (words[(k / 8)] >> static_cast<uint>(((k % 8) * 4)));
      uint t_10 = (t_9 & uint(15));
      q[k] = static_cast<float>(t_10);
    }
    // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
    int t_11 = (K / 64);
    // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    half t_12[4];
    int groups_1 = ((rows_1 * t_11) + (kw_1 / 8));
    t_12[0] = (mask ? (sq_ptr + groups_1)[0] : half(0.0f));
    t_12[1] = t_12[0];
    t_12[2] = t_12[0];
    t_12[3] = t_12[0];
    float scale[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      scale[k] = static_cast<float>(t_12[k]);
    }
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    half t_13[4];
    t_13[0] = (mask ? (bq_ptr + groups_1)[0] : half(0.0f));
    t_13[1] = t_13[0];
    t_13[2] = t_13[0];
    t_13[3] = t_13[0];
    float bias[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      bias[k] = static_cast<float>(t_13[k]);
    }
    // 64: return q * scale + bias, kw, k_ok
    float w[32];
    float x[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 4) {
      float t_14_0 = (q[k] * scale[(k / 8)]);
      w[k] = (t_14_0 + bias[(k / 8)]);
      float t_14_1 = (q[(k + 1)] * scale[(k / 8)]);
      w[(k + 1)] = (t_14_1 + bias[(k / 8)]);
      float t_14_2 = (q[(k + 2)] * scale[(k / 8)]);
      w[(k + 2)] = (t_14_2 + bias[(k / 8)]);
      float t_14_3 = (q[(k + 3)] * scale[(k / 8)]);
      w[(k + 3)] = (t_14_3 + bias[(k / 8)]);
      // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
      // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
      int kw_2 = (t_6 + (((int(thread_index_in_simdgroup) % 16) * 4) + (k / 8)));
      int offs_1 = ((kw_2 * 8) + (k % 8));
      bool k_ok_2 = ((kw_2 / 8) < t_7);
      half t_15_0;
      half t_15_1;
      half t_15_2;
      half t_15_3;
      {
        packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
        if (k_ok_2) mf_v = *((const device packed_half4*)((x_ptr + offs_1)));
        t_15_0 = mf_v[0];
        t_15_1 = mf_v[1];
        t_15_2 = mf_v[2];
        t_15_3 = mf_v[3];
      }
      x[k] = static_cast<float>(t_15_0);
      x[(k + 1)] = static_cast<float>(t_15_1);
      x[(k + 2)] = static_cast<float>(t_15_2);
      x[(k + 3)] = static_cast<float>(t_15_3);
    }
    // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
    float t_16[32];
    #pragma unroll
    for (int k = 0; (k < 32); k += 1) {
      t_16[k] = (w[k] * x[(((k / 8) * 8) + (k % 8))]);
    }
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float acc_2 = t_16[(k * 8)];
      acc_2 = (acc_2 + t_16[((k * 8) + 1)]);
      acc_2 = (acc_2 + t_16[((k * 8) + 2)]);
      acc_2 = (acc_2 + t_16[((k * 8) + 3)]);
      acc_2 = (acc_2 + t_16[((k * 8) + 4)]);
      acc_2 = (acc_2 + t_16[((k * 8) + 5)]);
      acc_2 = (acc_2 + t_16[((k * 8) + 6)]);
      acc_2 = (acc_2 + t_16[((k * 8) + 7)]);
      float acc_3 = (acc[k] + acc_2);
      float acc_4 = acc_3;
      acc[k] = acc_4;
    }
  }
  // 129: y = tl.sum(acc, axis=1) * inv_rms
  float acc_5[1];
  acc_5[0] = acc[0];
  acc_5[0] = (acc_5[0] + acc[1]);
  acc_5[0] = (acc_5[0] + acc[2]);
  acc_5[0] = (acc_5[0] + acc[3]);
  float partner = simd_shuffle_xor(acc_5[0], ushort(1));
  acc_5[0] = (acc_5[0] + partner);
  float partner_1 = simd_shuffle_xor(acc_5[0], ushort(2));
  acc_5[0] = (acc_5[0] + partner_1);
  float partner_2 = simd_shuffle_xor(acc_5[0], ushort(4));
  acc_5[0] = (acc_5[0] + partner_2);
  float partner_3 = simd_shuffle_xor(acc_5[0], ushort(8));
  acc_5[0] = (acc_5[0] + partner_3);
  float y[1];
  y[0] = (acc_5[0] * 1.0f);
  // 132: tl.store(out_ptr + rows, y, mask=rows < N)
  half t_17[1];
  t_17[0] = static_cast<half>(y[0]);
  int rows_2 = (t_5 + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
  if ((((int(thread_index_in_simdgroup) % 16) == 0) && (rows_2 < NQ))) {
    *((q_ptr + rows_2)) = t_17[0];
  }
} else {
  // 249: elif block < q_blocks + kv_blocks:
  int t_18 = (q_blocks + kv_blocks);
  bool t_19 = (int(threadgroup_position_in_grid.x) < t_18);
  if (t_19) {
    // 254: qmv_rows(x_ptr, norm_ptr, inv_rms, wk_ptr, sk_ptr, bk_ptr, k_ptr, kb_ptr, block - q_blocks, NKV, K, GROUP,
    int t_20 = (int(threadgroup_position_in_grid.x) - q_blocks);
    // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
    int t_21 = (t_20 * 8);
    // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    // 126: for k0 in range(0, K, BLOCK_K):
    float acc_6[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float acc_7 = 0.0f;
      acc_6[k] = acc_7;
    }
    for (int k0_1 = 0; (k0_1 < K); k0_1 += 512) {
      // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
      int t_22 = (k0_1 / 8);
      // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
      int t_23 = (K / 64);
      // 58: mask = (rows < N)[:, None] & k_ok[None, :]
      // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
      int t_24 = (K / 8);
      uint words_1[4];
      int rows_4 = (t_21 + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
      int kw_4 = (t_22 + ((int(thread_index_in_simdgroup) % 16) * 4));
      bool k_ok_4 = ((kw_4 / 8) < t_23);
      bool mask_2 = ((rows_4 < NKV) & k_ok_4);
      {
        packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
        if (mask_2) mf_v = *((const device packed_uint4*)(((wk_ptr + (rows_4 * t_24)) + kw_4)));
        words_1[0] = mf_v[0];
        words_1[1] = mf_v[1];
        words_1[2] = mf_v[2];
        words_1[3] = mf_v[3];
      }
      // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
      float q_1[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 1) {
        uint t_25 = (words_1[(k / 8)] >> static_cast<uint>(((k % 8) * 4)));
        uint t_26 = (t_25 & uint(15));
        q_1[k] = static_cast<float>(t_26);
      }
      // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
      int t_27 = (K / 64);
      // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      half t_28[4];
      int groups_3 = ((rows_4 * t_27) + (kw_4 / 8));
      t_28[0] = (mask_2 ? (sk_ptr + groups_3)[0] : half(0.0f));
      t_28[1] = t_28[0];
      t_28[2] = t_28[0];
      t_28[3] = t_28[0];
      float scale_1[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        scale_1[k] = static_cast<float>(t_28[k]);
      }
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      half t_29[4];
      t_29[0] = (mask_2 ? (bk_ptr + groups_3)[0] : half(0.0f));
      t_29[1] = t_29[0];
      t_29[2] = t_29[0];
      t_29[3] = t_29[0];
      float bias_1[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        bias_1[k] = static_cast<float>(t_29[k]);
      }
      // 64: return q * scale + bias, kw, k_ok
      float w_1[32];
      float x_1[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 4) {
        float t_30_0 = (q_1[k] * scale_1[(k / 8)]);
        w_1[k] = (t_30_0 + bias_1[(k / 8)]);
        float t_30_1 = (q_1[(k + 1)] * scale_1[(k / 8)]);
        w_1[(k + 1)] = (t_30_1 + bias_1[(k / 8)]);
        float t_30_2 = (q_1[(k + 2)] * scale_1[(k / 8)]);
        w_1[(k + 2)] = (t_30_2 + bias_1[(k / 8)]);
        float t_30_3 = (q_1[(k + 3)] * scale_1[(k / 8)]);
        w_1[(k + 3)] = (t_30_3 + bias_1[(k / 8)]);
        // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
        // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
        int kw_5 = (t_22 + (((int(thread_index_in_simdgroup) % 16) * 4) + (k / 8)));
        int offs_3 = ((kw_5 * 8) + (k % 8));
        bool k_ok_5 = ((kw_5 / 8) < t_23);
        half t_31_0;
        half t_31_1;
        half t_31_2;
        half t_31_3;
        {
          packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
          if (k_ok_5) mf_v = *((const device packed_half4*)((x_ptr + offs_3)));
          t_31_0 = mf_v[0];
          t_31_1 = mf_v[1];
          t_31_2 = mf_v[2];
          t_31_3 = mf_v[3];
        }
        x_1[k] = static_cast<float>(t_31_0);
        x_1[(k + 1)] = static_cast<float>(t_31_1);
        x_1[(k + 2)] = static_cast<float>(t_31_2);
        x_1[(k + 3)] = static_cast<float>(t_31_3);
      }
      // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
      float t_32[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 1) {
        t_32[k] = (w_1[k] * x_1[(((k / 8) * 8) + (k % 8))]);
      }
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        float acc_8 = t_32[(k * 8)];
        acc_8 = (acc_8 + t_32[((k * 8) + 1)]);
        acc_8 = (acc_8 + t_32[((k * 8) + 2)]);
        acc_8 = (acc_8 + t_32[((k * 8) + 3)]);
        acc_8 = (acc_8 + t_32[((k * 8) + 4)]);
        acc_8 = (acc_8 + t_32[((k * 8) + 5)]);
        acc_8 = (acc_8 + t_32[((k * 8) + 6)]);
        acc_8 = (acc_8 + t_32[((k * 8) + 7)]);
        float acc_9 = (acc_6[k] + acc_8);
        float acc_10 = acc_9;
        acc_6[k] = acc_10;
      }
    }
    // 129: y = tl.sum(acc, axis=1) * inv_rms
    float acc_11[1];
    acc_11[0] = acc_6[0];
    acc_11[0] = (acc_11[0] + acc_6[1]);
    acc_11[0] = (acc_11[0] + acc_6[2]);
    acc_11[0] = (acc_11[0] + acc_6[3]);
    float partner_4 = simd_shuffle_xor(acc_11[0], ushort(1));
    acc_11[0] = (acc_11[0] + partner_4);
    float partner_5 = simd_shuffle_xor(acc_11[0], ushort(2));
    acc_11[0] = (acc_11[0] + partner_5);
    float partner_6 = simd_shuffle_xor(acc_11[0], ushort(4));
    acc_11[0] = (acc_11[0] + partner_6);
    float partner_7 = simd_shuffle_xor(acc_11[0], ushort(8));
    acc_11[0] = (acc_11[0] + partner_7);
    float y_1[1];
    y_1[0] = (acc_11[0] * 1.0f);
    // 132: tl.store(out_ptr + rows, y, mask=rows < N)
    half t_33[1];
    t_33[0] = static_cast<half>(y_1[0]);
    int rows_5 = (t_21 + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
    if ((((int(thread_index_in_simdgroup) % 16) == 0) && (rows_5 < NKV))) {
      *((k_ptr + rows_5)) = t_33[0];
    }
  } else {
    // 257: qmv_rows(x_ptr, norm_ptr, inv_rms, wv_ptr, sv_ptr, bv_ptr, v_ptr, vb_ptr, block - q_blocks - kv_blocks, NKV, K,
    int t_34 = (int(threadgroup_position_in_grid.x) - q_blocks);
    int t_35 = (t_34 - kv_blocks);
    // 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
    int t_36 = (t_35 * 8);
    // 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
    // 126: for k0 in range(0, K, BLOCK_K):
    float acc_12[4];
    #pragma unroll
    for (int k = 0; (k < 4); k += 1) {
      float acc_13 = 0.0f;
      acc_12[k] = acc_13;
    }
    for (int k0_2 = 0; (k0_2 < K); k0_2 += 512) {
      // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
      int t_37 = (k0_2 / 8);
      // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
      int t_38 = (K / 64);
      // 58: mask = (rows < N)[:, None] & k_ok[None, :]
      // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
      int t_39 = (K / 8);
      uint words_2[4];
      int rows_7 = (t_36 + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
      int kw_7 = (t_37 + ((int(thread_index_in_simdgroup) % 16) * 4));
      bool k_ok_7 = ((kw_7 / 8) < t_38);
      bool mask_4 = ((rows_7 < NKV) & k_ok_7);
      {
        packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
        if (mask_4) mf_v = *((const device packed_uint4*)(((wv_ptr + (rows_7 * t_39)) + kw_7)));
        words_2[0] = mf_v[0];
        words_2[1] = mf_v[1];
        words_2[2] = mf_v[2];
        words_2[3] = mf_v[3];
      }
      // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
      float q_2[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 1) {
        uint t_40 = (words_2[(k / 8)] >> static_cast<uint>(((k % 8) * 4)));
        uint t_41 = (t_40 & uint(15));
        q_2[k] = static_cast<float>(t_41);
      }
      // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
      int t_42 = (K / 64);
      // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      half t_43[4];
      int groups_5 = ((rows_7 * t_42) + (kw_7 / 8));
      t_43[0] = (mask_4 ? (sv_ptr + groups_5)[0] : half(0.0f));
      t_43[1] = t_43[0];
      t_43[2] = t_43[0];
      t_43[3] = t_43[0];
      float scale_2[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        scale_2[k] = static_cast<float>(t_43[k]);
      }
      // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
      half t_44[4];
      t_44[0] = (mask_4 ? (bv_ptr + groups_5)[0] : half(0.0f));
      t_44[1] = t_44[0];
      t_44[2] = t_44[0];
      t_44[3] = t_44[0];
      float bias_2[4];
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        bias_2[k] = static_cast<float>(t_44[k]);
      }
      // 64: return q * scale + bias, kw, k_ok
      float w_2[32];
      float x_2[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 4) {
        float t_45_0 = (q_2[k] * scale_2[(k / 8)]);
        w_2[k] = (t_45_0 + bias_2[(k / 8)]);
        float t_45_1 = (q_2[(k + 1)] * scale_2[(k / 8)]);
        w_2[(k + 1)] = (t_45_1 + bias_2[(k / 8)]);
        float t_45_2 = (q_2[(k + 2)] * scale_2[(k / 8)]);
        w_2[(k + 2)] = (t_45_2 + bias_2[(k / 8)]);
        float t_45_3 = (q_2[(k + 3)] * scale_2[(k / 8)]);
        w_2[(k + 3)] = (t_45_3 + bias_2[(k / 8)]);
        // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
        // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
        int kw_8 = (t_37 + (((int(thread_index_in_simdgroup) % 16) * 4) + (k / 8)));
        int offs_5 = ((kw_8 * 8) + (k % 8));
        bool k_ok_8 = ((kw_8 / 8) < t_38);
        half t_46_0;
        half t_46_1;
        half t_46_2;
        half t_46_3;
        {
          packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
          if (k_ok_8) mf_v = *((const device packed_half4*)((x_ptr + offs_5)));
          t_46_0 = mf_v[0];
          t_46_1 = mf_v[1];
          t_46_2 = mf_v[2];
          t_46_3 = mf_v[3];
        }
        x_2[k] = static_cast<float>(t_46_0);
        x_2[(k + 1)] = static_cast<float>(t_46_1);
        x_2[(k + 2)] = static_cast<float>(t_46_2);
        x_2[(k + 3)] = static_cast<float>(t_46_3);
      }
      // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
      float t_47[32];
      #pragma unroll
      for (int k = 0; (k < 32); k += 1) {
        t_47[k] = (w_2[k] * x_2[(((k / 8) * 8) + (k % 8))]);
      }
      #pragma unroll
      for (int k = 0; (k < 4); k += 1) {
        float acc_14 = t_47[(k * 8)];
        acc_14 = (acc_14 + t_47[((k * 8) + 1)]);
        acc_14 = (acc_14 + t_47[((k * 8) + 2)]);
        acc_14 = (acc_14 + t_47[((k * 8) + 3)]);
        acc_14 = (acc_14 + t_47[((k * 8) + 4)]);
        acc_14 = (acc_14 + t_47[((k * 8) + 5)]);
        acc_14 = (acc_14 + t_47[((k * 8) + 6)]);
        acc_14 = (acc_14 + t_47[((k * 8) + 7)]);
        float acc_15 = (acc_12[k] + acc_14);
        float acc_16 = acc_15;
        acc_12[k] = acc_16;
      }
    }
    // 129: y = tl.sum(acc, axis=1) * inv_rms
    float acc_17[1];
    acc_17[0] = acc_12[0];
    acc_17[0] = (acc_17[0] + acc_12[1]);
    acc_17[0] = (acc_17[0] + acc_12[2]);
    acc_17[0] = (acc_17[0] + acc_12[3]);
    float partner_8 = simd_shuffle_xor(acc_17[0], ushort(1));
    acc_17[0] = (acc_17[0] + partner_8);
    float partner_9 = simd_shuffle_xor(acc_17[0], ushort(2));
    acc_17[0] = (acc_17[0] + partner_9);
    float partner_10 = simd_shuffle_xor(acc_17[0], ushort(4));
    acc_17[0] = (acc_17[0] + partner_10);
    float partner_11 = simd_shuffle_xor(acc_17[0], ushort(8));
    acc_17[0] = (acc_17[0] + partner_11);
    float y_2[1];
    y_2[0] = (acc_17[0] * 1.0f);
    // 132: tl.store(out_ptr + rows, y, mask=rows < N)
    half t_48[1];
    t_48[0] = static_cast<half>(y_2[0]);
    int rows_8 = (t_36 + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
    if ((((int(thread_index_in_simdgroup) % 16) == 0) && (rows_8 < NKV))) {
      *((v_ptr + rows_8)) = t_48[0];
    }
  }
}
