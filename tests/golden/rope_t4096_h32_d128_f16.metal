// 67: t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
int t = (int(threadgroup_position_in_grid.x) * 16);
// 68: i = tl.arange(0, HALF)
// 69: inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
float t_1 = (-log_base);
float t_2 = (t_1 / 64.0f);
// 70: theta = ((t + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
float c[8];
float s[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  int t_3 = (t + (((k / 4) * 8) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int i = (((int(thread_index_in_simdgroup) % 16) * 4) + (k % 4));
  float inv_freq = metal::exp((static_cast<float>(i) * t_2));
  float theta = ((static_cast<float>((t_3 + offset)) * pos_scale) * inv_freq);
  // 71: c = tl.cos(theta)
  c[k] = metal::cos(theta);
  // 72: s = tl.sin(theta)
  s[k] = metal::sin(theta);
}
// 73: first = t[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
// 78: for j in range(HEADS):  # the heads of this program: the same angles
for (int j = 0; (j < 8); j += 1) {
  // 79: head = tl.program_id(1) * HEADS + j
  int t_4 = (int(threadgroup_position_in_grid.y) * 8);
  int head = (t_4 + j);
  // 80: ok = (t < T)[:, None] & (head < n_heads)
  bool t_5 = (head < n_heads);
  // 81: x_head = x_ptr + head * T * (2 * HALF)
  int t_6 = (head * T);
  int t_7 = (t_6 * 128);
  decltype(x_ptr) x_head = (x_ptr + t_7);
  // 82: out_head = out_ptr + head * T * (2 * HALF)
  int t_8 = (head * T);
  int t_9 = (t_8 * 128);
  decltype(out_ptr) out_head = (out_ptr + t_9);
  // 83: x1 = tl.load(x_head + first, mask=ok, other=0.0).to(tl.float32)
  int t_3 = t;
  int i = 0;
  half t_22[8];
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int t_11 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int i_1 = ((int(thread_index_in_simdgroup) % 16) * 4);
    int first_1 = ((t_11 * 128) + i_1);
    bool ok_1 = ((t_11 < T) & t_5);
    half t_10_0;
    half t_10_1;
    half t_10_2;
    half t_10_3;
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (ok_1) mf_v = *((const device packed_half4*)((x_head + first_1)));
      t_10_0 = mf_v[0];
      t_10_1 = mf_v[1];
      t_10_2 = mf_v[2];
      t_10_3 = mf_v[3];
    }
    float x1_0 = static_cast<float>(t_10_0);
    float x1_1 = static_cast<float>(t_10_1);
    float x1_2 = static_cast<float>(t_10_2);
    float x1_3 = static_cast<float>(t_10_3);
    // 84: x2 = tl.load(x_head + first + partner, mask=ok, other=0.0).to(tl.float32)
    int t_13 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int i_2 = ((int(thread_index_in_simdgroup) % 16) * 4);
    int first_2 = ((t_13 * 128) + i_2);
    bool ok_2 = ((t_13 < T) & t_5);
    half t_12_0;
    half t_12_1;
    half t_12_2;
    half t_12_3;
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (ok_2) mf_v = *((const device packed_half4*)(((x_head + first_2) + 64)));
      t_12_0 = mf_v[0];
      t_12_1 = mf_v[1];
      t_12_2 = mf_v[2];
      t_12_3 = mf_v[3];
    }
    float x2_0 = static_cast<float>(t_12_0);
    float x2_1 = static_cast<float>(t_12_1);
    float x2_2 = static_cast<float>(t_12_2);
    float x2_3 = static_cast<float>(t_12_3);
    // 85: tl.store(out_head + first, x1 * c - x2 * s, mask=ok)
    float t_14_0 = (x1_0 * c[k]);
    float t_14_1 = (x1_1 * c[(k + 1)]);
    float t_14_2 = (x1_2 * c[(k + 2)]);
    float t_14_3 = (x1_3 * c[(k + 3)]);
    float t_15_0 = (x2_0 * s[k]);
    float t_15_1 = (x2_1 * s[(k + 1)]);
    float t_15_2 = (x2_2 * s[(k + 2)]);
    float t_15_3 = (x2_3 * s[(k + 3)]);
    float t_16_0 = (t_14_0 - t_15_0);
    float t_16_1 = (t_14_1 - t_15_1);
    float t_16_2 = (t_14_2 - t_15_2);
    float t_16_3 = (t_14_3 - t_15_3);
    half t_17_0 = static_cast<half>(t_16_0);
    half t_17_1 = static_cast<half>(t_16_1);
    half t_17_2 = static_cast<half>(t_16_2);
    half t_17_3 = static_cast<half>(t_16_3);
    int t_18 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int i_3 = ((int(thread_index_in_simdgroup) % 16) * 4);
    int first_3 = ((t_18 * 128) + i_3);
    bool ok_3 = ((t_18 < T) & t_5);
    if (ok_3) {
      *((device packed_half4*)((out_head + first_3))) = packed_half4(t_17_0, t_17_1, t_17_2, t_17_3);
    }
    // 86: tl.store(out_head + first + partner, x1 * s + x2 * c, mask=ok)
    float t_19_0 = (x1_0 * s[k]);
    float t_19_1 = (x1_1 * s[(k + 1)]);
    float t_19_2 = (x1_2 * s[(k + 2)]);
    float t_19_3 = (x1_3 * s[(k + 3)]);
    float t_20_0 = (x2_0 * c[k]);
    float t_20_1 = (x2_1 * c[(k + 1)]);
    float t_20_2 = (x2_2 * c[(k + 2)]);
    float t_20_3 = (x2_3 * c[(k + 3)]);
    float t_21_0 = (t_19_0 + t_20_0);
    float t_21_1 = (t_19_1 + t_20_1);
    float t_21_2 = (t_19_2 + t_20_2);
    float t_21_3 = (t_19_3 + t_20_3);
    t_22[k] = static_cast<half>(t_21_0);
    t_22[(k + 1)] = static_cast<half>(t_21_1);
    t_22[(k + 2)] = static_cast<half>(t_21_2);
    t_22[(k + 3)] = static_cast<half>(t_21_3);
  }
  #pragma unroll
  for (int k = 0; (k < 8); k += 4) {
    int t_23 = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
    int i_4 = ((int(thread_index_in_simdgroup) % 16) * 4);
    int first_4 = ((t_23 * 128) + i_4);
    bool ok_4 = ((t_23 < T) & t_5);
    if (ok_4) {
      *((device packed_half4*)(((out_head + first_4) + 64))) = packed_half4(t_22[k], t_22[(k + 1)], t_22[(k + 2)], t_22[(k + 3)]);
    }
  }
}
