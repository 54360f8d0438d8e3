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
  float q[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    uint t_4 = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<uint>(((k % 8) * 4)));
    uint t_5 = (t_4 & uint(15));
    q[k] = static_cast<float>(t_5);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_6 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  bool mask = ((rows < N) & k_ok);
  float scale[16];
  float bias[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rows_2 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_2 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
    bool k_ok_2 = ((kw_2 / 8) < t_2);
    bool mask_1 = ((rows_2 < N) & k_ok_2);
    half t_7_0 = (mask_1 ? (scales_ptr + groups_1)[0] : half(0.0f));
    half t_7_1 = t_7_0;
    half t_7_2 = t_7_0;
    half t_7_3 = t_7_0;
    scale[k] = static_cast<float>(t_7_0);
    scale[(k + 1)] = static_cast<float>(t_7_1);
    scale[(k + 2)] = static_cast<float>(t_7_2);
    scale[(k + 3)] = static_cast<float>(t_7_3);
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    int rows_3 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_3 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_2 = ((rows_3 * t_6) + (kw_3 / 8));
    bool k_ok_3 = ((kw_3 / 8) < t_2);
    bool mask_2 = ((rows_3 < N) & k_ok_3);
    half t_8_0 = (mask_2 ? (biases_ptr + groups_2)[0] : half(0.0f));
    half t_8_1 = t_8_0;
    half t_8_2 = t_8_0;
    half t_8_3 = t_8_0;
    bias[k] = static_cast<float>(t_8_0);
    bias[(k + 1)] = static_cast<float>(t_8_1);
    bias[(k + 2)] = static_cast<float>(t_8_2);
    bias[(k + 3)] = static_cast<float>(t_8_3);
  }
  // 64: return q * scale + bias, kw, k_ok
  float w[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    float t_9 = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
    w[k] = (t_9 + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
  // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
  float x[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 4) {
    int kw_4 = (t_1 + (((int(thread_index_in_simdgroup) % 16) * 4) + (k / 8)));
    int offs_1 = ((kw_4 * 8) + (k % 8));
    bool k_ok_4 = ((kw_4 / 8) < t_2);
    half t_10_0;
    half t_10_1;
    half t_10_2;
    half t_10_3;
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (k_ok_4) mf_v = *((const device packed_half4*)((x_ptr + offs_1)));
      t_10_0 = mf_v[0];
      t_10_1 = mf_v[1];
      t_10_2 = mf_v[2];
      t_10_3 = mf_v[3];
    }
    x[k] = static_cast<float>(t_10_0);
    x[(k + 1)] = static_cast<float>(t_10_1);
    x[(k + 2)] = static_cast<float>(t_10_2);
    x[(k + 3)] = static_cast<float>(t_10_3);
  }
  // 128: acc += tl.sum(w * x_words(x_ptr, norm_ptr, kw, k_ok, BITS, NORM), axis=2)
  float t_11[128];
  #pragma unroll
  for (int k = 0; (k < 128); k += 1) {
    t_11[k] = (w[k] * x[((((k / 8) % 4) * 8) + (k % 8))]);
  }
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    float acc_2 = t_11[(((k / 4) * 32) + ((k % 4) * 8))];
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
    acc_2 = (acc_2 + t_11[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
    float acc_3 = (acc[k] + acc_2);
    float acc_4 = acc_3;
    acc[k] = acc_4;
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
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float y = (acc_5[k] * 1.0f);
  // 132: tl.store(out_ptr + rows, y, mask=rows < N)
  half t_12 = static_cast<half>(y);
  int rows = (t + (((k * 4) * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  if ((((int(thread_index_in_simdgroup) % 16) == 0) && (rows < N))) {
    *((out_ptr + rows)) = t_12;
  }
}
