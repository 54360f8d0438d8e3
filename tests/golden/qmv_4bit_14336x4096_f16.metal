// 145: qmv_rows(x_ptr, x_ptr, 1.0, wq_ptr, scales_ptr, biases_ptr, out_ptr, res_ptr, tl.program_id(0), N, K, GROUP, BITS,
// 124: rows = block * BLOCK_N + tl.arange(0, BLOCK_N)
int t = (int(threadgroup_position_in_grid.x) * 32);
// 125: acc = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
// 126: for k0 in range(0, K, BLOCK_K):
float acc[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float acc_1 = 0.0f;
  acc[k] = acc_1;
}
for (int k0 = 0; (k0 < K); k0 += 512) {
  // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
  int t_1 = (k0 / 8);
  // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
  int t_2 = (K / 64);
  // 58: mask = (rows < N)[:, None] & k_ok[None, :]
  // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
  int t_3 = (K / 8);
  int rows = t;
  int kw = t_1;
  bool k_ok = ((kw / 8) < t_2);
  uint words[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_1 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_1 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    bool k_ok_1 = ((kw_1 / 8) < t_2);
    bool mask = ((rows_1 < N) & k_ok_1);
    {
      packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
      if (mask) mf_v = *((const device packed_uint4*)(((wq_ptr + (rows_1 * t_3)) + kw_1)));
      words[k] = mf_v[0];
      words[(k + 1)] = mf_v[1];
      words[(k + 2)] = mf_v[2];
      words[(k + 3)] = mf_v[3];
    }
  }
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  uint t_4[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_4[k] = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<uint>(((k % 8) * 4)));
  }
  uint t_5[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_5[k] = (t_4[k] & uint(15));
  }
  float q[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    q[k] = static_cast<float>(t_5[k]);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_6 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  bool mask = ((rows < N) & k_ok);
  half t_7[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_2 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_2 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
    bool k_ok_2 = ((kw_2 / 8) < t_2);
    bool mask_1 = ((rows_2 < N) & k_ok_2);
    t_7[k] = (mask_1 ? (scales_ptr + groups_1)[0] : half(0.0f));
    t_7[(k + 1)] = t_7[k];
    t_7[(k + 2)] = t_7[k];
    t_7[(k + 3)] = t_7[k];
  }
  float scale[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    scale[k] = static_cast<float>(t_7[k]);
  }
  // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_8[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_3 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_3 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_2 = ((rows_3 * t_6) + (kw_3 / 8));
    bool k_ok_3 = ((kw_3 / 8) < t_2);
    bool mask_2 = ((rows_3 < N) & k_ok_3);
    t_8[k] = (mask_2 ? (biases_ptr + groups_2)[0] : half(0.0f));
    t_8[(k + 1)] = t_8[k];
    t_8[(k + 2)] = t_8[k];
    t_8[(k + 3)] = t_8[k];
  }
  float bias[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    bias[k] = static_cast<float>(t_8[k]);
  }
  // 64: return q * scale + bias, kw, k_ok
  float t_9[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_9[k] = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  float w[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    w[k] = (t_9[k] + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
  // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
  half t_10[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 4) {
    int kw_4 = (t_1 + (((int(thread_index_in_simdgroup) % 16) * 4) + (k / 8)));
    int offs_1 = ((kw_4 * 8) + (k % 8));
    bool k_ok_4 = ((kw_4 / 8) < t_2);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (k_ok_4) mf_v = *((const device packed_half4*)((x_ptr + offs_1)));
      t_10[k] = mf_v[0];
      t_10[(k + 1)] = mf_v[1];
      t_10[(k + 2)] = mf_v[2];
      t_10[(k + 3)] = mf_v[3];
    }
  }
  float x[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    x[k] = static_cast<float>(t_10[k]);
  }
  // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
  float t_11[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_11[k] = (w[k] * x[((((k / 8) % 4) * 8) + (k % 8))]);
  }
  float acc_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_2[k] = t_11[(((k / 4) * 32) + ((k % 4) * 8))];
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
    acc_2[k] = (acc_2[k] + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
  }
  float acc_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_3[k] = (acc[k] + acc_2[k]);
  }
  float acc_4[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_4[k] = acc_3[k];
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc[k] = acc_4[k];
  }
}
// 129: y = tl.sum(acc, axis=1) * inv_rms
float acc_5[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  acc_5[k] = acc[(k * 4)];
  acc_5[k] = (acc_5[k] + acc[((k * 4) + 1)]);
  acc_5[k] = (acc_5[k] + acc[((k * 4) + 2)]);
  acc_5[k] = (acc_5[k] + acc[((k * 4) + 3)]);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float partner = simd_shuffle_xor(acc_5[k], ushort(1));
  acc_5[k] = (acc_5[k] + partner);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float partner_1 = simd_shuffle_xor(acc_5[k], ushort(2));
  acc_5[k] = (acc_5[k] + partner_1);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float partner_2 = simd_shuffle_xor(acc_5[k], ushort(4));
  acc_5[k] = (acc_5[k] + partner_2);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float partner_3 = simd_shuffle_xor(acc_5[k], ushort(8));
  acc_5[k] = (acc_5[k] + partner_3);
}
float y[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  y[k] = (acc_5[k] * 1.0f);
}
// 132: tl.store(out_ptr + rows, y, mask=rows < N)
half t_12[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  t_12[k] = static_cast<half>(y[k]);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  int rows = (t + (((k * 4) * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  if ((((int(thread_index_in_simdgroup) % 16) == 0) && (rows < N))) {
    *((out_ptr + rows)) = t_12[k];
  }
}
