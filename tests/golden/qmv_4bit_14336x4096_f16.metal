// 62: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
int t = (int(threadgroup_position_in_grid.x) * 32);
// 63: row_ok = rows < N
// 64: shifts = tl.arange(0, PER_WORD) * BITS
// 65: acc = tl.zeros((BLOCK_N, WORDS), dtype=tl.float32)
// 66: for k0 in range(0, K, BLOCK_K):
float acc[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  float acc_1 = 0.0f;
  acc[k] = acc_1;
}
for (int k0 = 0; (k0 < K); k0 += 512) {
  // 67: kw = k0 // PER_WORD + tl.arange(0, WORDS)  # word index in the row
  int t_1 = (k0 / 8);
  // 68: k_ok = kw // (GROUP // PER_WORD) < K // GROUP  # whole groups in or out: constant over a thread's words
  int t_2 = (K / 64);
  // 69: mask = row_ok[:, None] & k_ok[None, :]
  // 70: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
  int t_3 = (K / 8);
  int rows = t;
  int kw = t_1;
  bool row_ok = (rows < N);
  bool k_ok = ((kw / 8) < t_2);
  uint words[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_1 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_1 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    bool row_ok_1 = (rows_1 < N);
    bool k_ok_1 = ((kw_1 / 8) < t_2);
    bool mask = (row_ok_1 & k_ok_1);
    {
      packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
      if (mask) mf_v = *((const device packed_uint4*)(((wq_ptr + (rows_1 * t_3)) + kw_1)));
      words[k] = mf_v[0];
      words[(k + 1)] = mf_v[1];
      words[(k + 2)] = mf_v[2];
      words[(k + 3)] = mf_v[3];
    }
  }
  // 71: q = ((words[:, :, None] >> shifts[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  uint t_4[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    int shifts_1 = ((k % 8) * 4);
    t_4[k] = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<uint>(shifts_1));
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
  // 72: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_6 = (K / 64);
  // 73: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  bool mask = (row_ok & k_ok);
  half t_7[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_2 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_2 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
    bool row_ok_2 = (rows_2 < N);
    bool k_ok_2 = ((kw_2 / 8) < t_2);
    bool mask_1 = (row_ok_2 & k_ok_2);
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
  // 74: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  half t_8[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_3 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_3 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_2 = ((rows_3 * t_6) + (kw_3 / 8));
    bool row_ok_3 = (rows_3 < N);
    bool k_ok_3 = ((kw_3 / 8) < t_2);
    bool mask_2 = (row_ok_3 & k_ok_3);
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
  // 75: x = tl.load(x_ptr + (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :],
  // 76: mask=k_ok[None, :, None], other=0.0).to(tl.float32)
  // 75: x = tl.load(x_ptr + (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :],
  half t_9[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 4) {
    int kw_4 = (t_1 + (((int(thread_index_in_simdgroup) % 16) * 4) + (k / 8)));
    bool k_ok_4 = ((kw_4 / 8) < t_2);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (k_ok_4) mf_v = *((const device packed_half4*)(((x_ptr + (kw_4 * 8)) + (k % 8))));
      t_9[k] = mf_v[0];
      t_9[(k + 1)] = mf_v[1];
      t_9[(k + 2)] = mf_v[2];
      t_9[(k + 3)] = mf_v[3];
    }
  }
  float x[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    x[k] = static_cast<float>(t_9[k]);
  }
  // 77: acc += tl.sum((q * scale + bias) * x, axis=2)
  float t_10[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_10[k] = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  float t_11[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_11[k] = (t_10[k] + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  float t_12[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_12[k] = (t_11[k] * x[((((k / 8) % 4) * 8) + (k % 8))]);
  }
  float acc_2[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    acc_2[k] = t_12[(((k / 4) * 32) + ((k % 4) * 8))];
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
    acc_2[k] = (acc_2[k] + t_12[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
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
// 78: tl.store(out_ptr + rows, tl.sum(acc, axis=1), mask=row_ok)
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
half t_13[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  t_13[k] = static_cast<half>(acc_5[k]);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  int rows = (t + (((k * 4) * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  bool row_ok = (rows < N);
  if ((((int(thread_index_in_simdgroup) % 16) == 0) && row_ok)) {
    *((out_ptr + rows)) = t_13[k];
  }
}
