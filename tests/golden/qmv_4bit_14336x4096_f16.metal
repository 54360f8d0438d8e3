// 52: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
int t = (int(threadgroup_position_in_grid.x) * 8);
// 53: row_ok = rows < N
// 54: acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
// 55: for k0 in range(0, K, BLOCK_K):
float acc[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  float acc_1 = 0.0f;
  acc[k] = acc_1;
}
for (int k0 = 0; (k0 < K); k0 += 256) {
  // 56: ks = k0 + tl.arange(0, BLOCK_K)
  // 57: k_ok = ks < K
  // 58: mask = row_ok[:, None] & k_ok[None, :]
  // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + (ks // PER_WORD)[None, :], mask=mask, other=0)
  int t_1 = (K / 8);
  int rows = t;
  bool row_ok = (rows < N);
  uint words[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    int rows_1 = (t + (((k / 8) * 2) + int(simdgroup_index_in_threadgroup)));
    int ks_1 = (k0 + (((k % 8) * 32) + int(thread_index_in_simdgroup)));
    bool row_ok_1 = (rows_1 < N);
    bool k_ok_1 = (ks_1 < K);
    bool mask = (row_ok_1 & k_ok_1);
    words[k] = (mask ? ((wq_ptr + (rows_1 * t_1)) + (ks_1 / 8))[0] : uint(0));
  }
  // 60: q = ((words >> ((ks % PER_WORD) * BITS)[None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  uint t_2[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    int ks_2 = (k0 + (((k % 8) * 32) + int(thread_index_in_simdgroup)));
    t_2[k] = (words[k] >> static_cast<uint>(((ks_2 % 8) * 4)));
  }
  uint t_3[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    t_3[k] = (t_2[k] & uint(15));
  }
  float q[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    q[k] = static_cast<float>(t_3[k]);
  }
  // 61: groups = rows[:, None] * (K // GROUP) + (ks // GROUP)[None, :]
  int t_4 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask, other=0.0).to(tl.float32)
  half t_5[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    int rows_2 = (t + (((k / 8) * 2) + int(simdgroup_index_in_threadgroup)));
    int ks_3 = (k0 + (((k % 8) * 32) + int(thread_index_in_simdgroup)));
    int groups_1 = ((rows_2 * t_4) + (ks_3 / 64));
    bool row_ok_2 = (rows_2 < N);
    bool k_ok_2 = (ks_3 < K);
    bool mask = (row_ok_2 & k_ok_2);
    t_5[k] = (mask ? (scales_ptr + groups_1)[0] : half(0.0f));
  }
  float scale[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    scale[k] = static_cast<float>(t_5[k]);
  }
  // 63: bias = tl.load(biases_ptr + groups, mask=mask, other=0.0).to(tl.float32)
  half t_6[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    int rows_3 = (t + (((k / 8) * 2) + int(simdgroup_index_in_threadgroup)));
    int ks_4 = (k0 + (((k % 8) * 32) + int(thread_index_in_simdgroup)));
    int groups_2 = ((rows_3 * t_4) + (ks_4 / 64));
    bool row_ok_3 = (rows_3 < N);
    bool k_ok_3 = (ks_4 < K);
    bool mask = (row_ok_3 & k_ok_3);
    t_6[k] = (mask ? (biases_ptr + groups_2)[0] : half(0.0f));
  }
  float bias[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    bias[k] = static_cast<float>(t_6[k]);
  }
  // 64: x = tl.load(x_ptr + ks, mask=k_ok, other=0.0).to(tl.float32)
  half t_7[4];
  int ks_5 = (k0 + (int(thread_index_in_threadgroup) * 4));
  bool k_ok_4 = (ks_5 < K);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (k_ok_4) mf_v = *((const device packed_half4*)((x_ptr + ks_5)));
    t_7[0] = mf_v[0];
    t_7[1] = mf_v[1];
    t_7[2] = mf_v[2];
    t_7[3] = mf_v[3];
  }
  float x[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    x[k] = static_cast<float>(t_7[k]);
  }
  // 65: acc += tl.sum((scale * q + bias) * x[None, :], axis=1)
  float t_8[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    t_8[k] = (scale[k] * q[k]);
  }
  float t_9[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    t_9[k] = (t_8[k] + bias[k]);
  }
  threadgroup float x_1_smem[256];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  *((threadgroup packed_float4*)((x_1_smem + (int(thread_index_in_threadgroup) * 4)))) = packed_float4(x[0], x[1], x[2], x[3]);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float t_10[32];
  #pragma unroll
  for (int k = 0; (k < 32); k += 1) {
    t_10[k] = (t_9[k] * x_1_smem[(((k % 8) * 32) + int(thread_index_in_simdgroup))]);
  }
  float acc_2[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_2[k] = t_10[(k * 8)];
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 1)]);
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 2)]);
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 3)]);
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 4)]);
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 5)]);
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 6)]);
    acc_2[k] = (acc_2[k] + t_10[((k * 8) + 7)]);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner = simd_shuffle_xor(acc_2[k], ushort(1));
    acc_2[k] = (acc_2[k] + partner);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_1 = simd_shuffle_xor(acc_2[k], ushort(2));
    acc_2[k] = (acc_2[k] + partner_1);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_2 = simd_shuffle_xor(acc_2[k], ushort(4));
    acc_2[k] = (acc_2[k] + partner_2);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_3 = simd_shuffle_xor(acc_2[k], ushort(8));
    acc_2[k] = (acc_2[k] + partner_3);
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    float partner_4 = simd_shuffle_xor(acc_2[k], ushort(16));
    acc_2[k] = (acc_2[k] + partner_4);
  }
  float acc_3[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_3[k] = (acc[k] + acc_2[k]);
  }
  float acc_4[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc_4[k] = acc_3[k];
  }
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    acc[k] = acc_4[k];
  }
}
// 66: tl.store(out_ptr + rows, acc, mask=row_ok)
half t_11[4];
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  t_11[k] = static_cast<half>(acc[k]);
}
#pragma unroll
for (int k = 0; (k < 4); k += 1) {
  int rows = (t + ((((k * 8) / 8) * 2) + int(simdgroup_index_in_threadgroup)));
  bool row_ok = (rows < N);
  if (((int(thread_index_in_simdgroup) == 0) && row_ok)) {
    *((out_ptr + rows)) = t_11[k];
  }
}
