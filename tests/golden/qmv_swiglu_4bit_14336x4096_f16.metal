inline float mf_sigmoid(float x) { return 1.0f / (1.0f + metal::exp(-x)); }

// 295: rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
int t = (int(threadgroup_position_in_grid.x) * 16);
// 296: gate = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
// 297: up = tl.zeros((BLOCK_N, BLOCK_K // PER_WORD), dtype=tl.float32)
// 298: for k0 in range(0, K, BLOCK_K):
float gate[8];
float up[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  float gate_1 = 0.0f;
  gate[k] = gate_1;
  float up_1 = 0.0f;
  up[k] = up_1;
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
  uint words[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rows_1 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_1 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    bool k_ok_1 = ((kw_1 / 8) < t_2);
    bool mask = ((rows_1 < N) & k_ok_1);
    {
      packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
      if (mask) mf_v = *((const device packed_uint4*)(((wg_ptr + (rows_1 * t_3)) + kw_1)));
      words[k] = mf_v[0];
      words[(k + 1)] = mf_v[1];
      words[(k + 2)] = mf_v[2];
      words[(k + 3)] = mf_v[3];
    }
  }
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  float q[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    uint t_4 = (words[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<uint>(((k % 8) * 4)));
    uint t_5 = (t_4 & uint(15));
    q[k] = static_cast<float>(t_5);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_6 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  bool mask = ((rows < N) & k_ok);
  float scale[8];
  float bias[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rows_2 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_2 = (t_1 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_1 = ((rows_2 * t_6) + (kw_2 / 8));
    bool k_ok_2 = ((kw_2 / 8) < t_2);
    bool mask_1 = ((rows_2 < N) & k_ok_2);
    half t_7_0 = (mask_1 ? (sg_ptr + groups_1)[0] : half(0.0f));
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
    half t_8_0 = (mask_2 ? (bg_ptr + groups_2)[0] : half(0.0f));
    half t_8_1 = t_8_0;
    half t_8_2 = t_8_0;
    half t_8_3 = t_8_0;
    bias[k] = static_cast<float>(t_8_0);
    bias[(k + 1)] = static_cast<float>(t_8_1);
    bias[(k + 2)] = static_cast<float>(t_8_2);
    bias[(k + 3)] = static_cast<float>(t_8_3);
  }
  // 64: return q * scale + bias, kw, k_ok
  float wg[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    float t_9 = (q[k] * scale[(((k / 32) * 4) + ((k / 8) % 4))]);
    wg[k] = (t_9 + bias[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  // 54: kw = k0 // PER_WORD + tl.arange(0, BLOCK_K // PER_WORD)  # word index in the row
  int t_10 = (k0 / 8);
  // 57: k_ok = kw // (GROUP // PER_WORD) < K // GROUP
  int t_11 = (K / 64);
  // 58: mask = (rows < N)[:, None] & k_ok[None, :]
  // 59: words = tl.load(wq_ptr + rows[:, None] * (K // PER_WORD) + kw[None, :], mask=mask, other=0)
  int t_12 = (K / 8);
  int kw_4 = t_10;
  bool k_ok_4 = ((kw_4 / 8) < t_11);
  uint words_1[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rows_4 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_5 = (t_10 + ((int(thread_index_in_simdgroup) % 16) * 4));
    bool k_ok_5 = ((kw_5 / 8) < t_11);
    bool mask_3 = ((rows_4 < N) & k_ok_5);
    {
      packed_uint4 mf_v = packed_uint4(uint(0), uint(0), uint(0), uint(0));
      if (mask_3) mf_v = *((const device packed_uint4*)(((wu_ptr + (rows_4 * t_12)) + kw_5)));
      words_1[k] = mf_v[0];
      words_1[(k + 1)] = mf_v[1];
      words_1[(k + 2)] = mf_v[2];
      words_1[(k + 3)] = mf_v[3];
    }
  }
  // 60: q = ((words[:, :, None] >> (tl.arange(0, PER_WORD) * BITS)[None, None, :]) & ((1 << BITS) - 1)).to(tl.float32)
  float q_1[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    uint t_13 = (words_1[(((k / 32) * 4) + ((k / 8) % 4))] >> static_cast<uint>(((k % 8) * 4)));
    uint t_14 = (t_13 & uint(15));
    q_1[k] = static_cast<float>(t_14);
  }
  // 61: groups = rows[:, None, None] * (K // GROUP) + (kw // (GROUP // PER_WORD))[None, :, None]
  int t_15 = (K / 64);
  // 62: scale = tl.load(scales_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
  bool mask_3 = ((rows < N) & k_ok_4);
  float scale_1[8];
  float bias_1[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int rows_5 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_6 = (t_10 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_4 = ((rows_5 * t_15) + (kw_6 / 8));
    bool k_ok_6 = ((kw_6 / 8) < t_11);
    bool mask_4 = ((rows_5 < N) & k_ok_6);
    half t_16_0 = (mask_4 ? (su_ptr + groups_4)[0] : half(0.0f));
    half t_16_1 = t_16_0;
    half t_16_2 = t_16_0;
    half t_16_3 = t_16_0;
    scale_1[k] = static_cast<float>(t_16_0);
    scale_1[(k + 1)] = static_cast<float>(t_16_1);
    scale_1[(k + 2)] = static_cast<float>(t_16_2);
    scale_1[(k + 3)] = static_cast<float>(t_16_3);
    // 63: bias = tl.load(biases_ptr + groups, mask=mask[:, :, None], other=0.0).to(tl.float32)
    int rows_6 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int kw_7 = (t_10 + ((int(thread_index_in_simdgroup) % 16) * 4));
    int groups_5 = ((rows_6 * t_15) + (kw_7 / 8));
    bool k_ok_7 = ((kw_7 / 8) < t_11);
    bool mask_5 = ((rows_6 < N) & k_ok_7);
    half t_17_0 = (mask_5 ? (bu_ptr + groups_5)[0] : half(0.0f));
    half t_17_1 = t_17_0;
    half t_17_2 = t_17_0;
    half t_17_3 = t_17_0;
    bias_1[k] = static_cast<float>(t_17_0);
    bias_1[(k + 1)] = static_cast<float>(t_17_1);
    bias_1[(k + 2)] = static_cast<float>(t_17_2);
    bias_1[(k + 3)] = static_cast<float>(t_17_3);
  }
  // 64: return q * scale + bias, kw, k_ok
  float wu[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    float t_18 = (q_1[k] * scale_1[(((k / 32) * 4) + ((k / 8) % 4))]);
    wu[k] = (t_18 + bias_1[(((k / 32) * 4) + ((k / 8) % 4))]);
  }
  // 73: offs = (kw * PER_WORD)[None, :, None] + tl.arange(0, PER_WORD)[None, None, :]
  // 74: x = tl.load(x_ptr + offs, mask=k_ok[None, :, None], other=0.0).to(tl.float32)
  half t_19[4];
  int kw_8 = (t_10 + ((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2)));
  int offs_1 = ((kw_8 * 8) + ((int(thread_index_in_simdgroup) % 2) * 4));
  bool k_ok_8 = ((kw_8 / 8) < t_11);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (k_ok_8) mf_v = *((const device packed_half4*)((x_ptr + offs_1)));
    t_19[0] = mf_v[0];
    t_19[1] = mf_v[1];
    t_19[2] = mf_v[2];
    t_19[3] = mf_v[3];
  }
  float x[4];
  #pragma unroll
  for (int k = 0; (k < 4); k += 1) {
    x[k] = static_cast<float>(t_19[k]);
  }
  // 302: gate += tl.sum(wg * x, axis=2)
  threadgroup float x_1_smem[512];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  *((threadgroup packed_float4*)((x_1_smem + ((((int(simdgroup_index_in_threadgroup) * 16) + (int(thread_index_in_simdgroup) / 2)) * 8) + ((int(thread_index_in_simdgroup) % 2) * 4))))) = packed_float4(x[0], x[1], x[2], x[3]);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float t_20[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    t_20[k] = (wg[k] * x_1_smem[(((((int(thread_index_in_simdgroup) % 16) * 4) + ((k / 8) % 4)) * 8) + (k % 8))]);
  }
  float gate_2[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float acc = t_20[(((k / 4) * 32) + ((k % 4) * 8))];
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
    acc = (acc + t_20[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
    gate_2[k] = (gate[k] + acc);
  }
  // 303: up += tl.sum(wu * x, axis=2)
  float t_21[64];
  #pragma unroll
  for (int k = 0; (k < 64); k += 1) {
    t_21[k] = (wu[k] * x_1_smem[(((((int(thread_index_in_simdgroup) % 16) * 4) + ((k / 8) % 4)) * 8) + (k % 8))]);
  }
  #pragma unroll
  for (int k = 0; (k < 8); k += 1) {
    float acc_1 = t_21[(((k / 4) * 32) + ((k % 4) * 8))];
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 1)]);
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 2)]);
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 3)]);
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 4)]);
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 5)]);
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 6)]);
    acc_1 = (acc_1 + t_21[((((k / 4) * 32) + ((k % 4) * 8)) + 7)]);
    float up_2 = (up[k] + acc_1);
    float gate_3 = gate_2[k];
    float up_3 = up_2;
    gate[k] = gate_3;
    up[k] = up_3;
  }
}
// 304: g = tl.sum(gate, axis=1)
float g[2];
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  g[k] = gate[(k * 4)];
  g[k] = (g[k] + gate[((k * 4) + 1)]);
  g[k] = (g[k] + gate[((k * 4) + 2)]);
  g[k] = (g[k] + gate[((k * 4) + 3)]);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner = simd_shuffle_xor(g[k], ushort(1));
  g[k] = (g[k] + partner);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_1 = simd_shuffle_xor(g[k], ushort(2));
  g[k] = (g[k] + partner_1);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_2 = simd_shuffle_xor(g[k], ushort(4));
  g[k] = (g[k] + partner_2);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_3 = simd_shuffle_xor(g[k], ushort(8));
  g[k] = (g[k] + partner_3);
}
// 305: u = tl.sum(up, axis=1)
float u[2];
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  u[k] = up[(k * 4)];
  u[k] = (u[k] + up[((k * 4) + 1)]);
  u[k] = (u[k] + up[((k * 4) + 2)]);
  u[k] = (u[k] + up[((k * 4) + 3)]);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_4 = simd_shuffle_xor(u[k], ushort(1));
  u[k] = (u[k] + partner_4);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_5 = simd_shuffle_xor(u[k], ushort(2));
  u[k] = (u[k] + partner_5);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_6 = simd_shuffle_xor(u[k], ushort(4));
  u[k] = (u[k] + partner_6);
}
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float partner_7 = simd_shuffle_xor(u[k], ushort(8));
  u[k] = (u[k] + partner_7);
}
// 310: tl.store(out_ptr + rows, g * tl.sigmoid(g) * u, mask=rows < N)
#pragma unroll
for (int k = 0; (k < 2); k += 1) {
  float t_22 = mf_sigmoid(g[k]);
  float t_23 = (g[k] * t_22);
  float t_24 = (t_23 * u[k]);
  half t_25 = static_cast<half>(t_24);
  int rows = (t + (((k * 4) * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  if ((((int(thread_index_in_simdgroup) % 16) == 0) && (rows < N))) {
    *((out_ptr + rows)) = t_25;
  }
}
