// 51: rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
int t = (int(threadgroup_position_in_grid.x) * 16);
// 52: ok = rows < n_rows
// 53: i = tl.arange(0, HALF)
// 54: inv_freq = tl.exp(i.to(tl.float32) * (-log_base / HALF))
float t_1 = (-log_base);
float t_2 = (t_1 / 64.0f);
// 55: theta = ((rows % T + offset).to(tl.float32) * pos_scale)[:, None] * inv_freq[None, :]
float theta[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  int rows = (t + (((k / 4) * 8) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int i = (((int(thread_index_in_simdgroup) % 16) * 4) + (k % 4));
  float inv_freq = metal::exp((static_cast<float>(i) * t_2));
  theta[k] = ((static_cast<float>(((rows % T) + offset)) * pos_scale) * inv_freq);
}
// 56: c = tl.cos(theta)
float c[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  c[k] = metal::cos(theta[k]);
}
// 57: s = tl.sin(theta)
float s[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  s[k] = metal::sin(theta[k]);
}
// 58: first = rows[:, None] * (2 * HALF) + i[None, :]  # non-traditional: element i pairs with i + HALF
// 63: x1 = tl.load(x_ptr + first, mask=ok[:, None], other=0.0).to(tl.float32)
half t_3[8];
#pragma unroll
for (int k = 0; (k < 8); k += 4) {
  int rows = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int i = ((int(thread_index_in_simdgroup) % 16) * 4);
  int first = ((rows * 128) + i);
  bool ok = (rows < n_rows);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (ok) mf_v = *((const device packed_half4*)((x_ptr + first)));
    t_3[k] = mf_v[0];
    t_3[(k + 1)] = mf_v[1];
    t_3[(k + 2)] = mf_v[2];
    t_3[(k + 3)] = mf_v[3];
  }
}
float x1[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  x1[k] = static_cast<float>(t_3[k]);
}
// 64: x2 = tl.load(x_ptr + first + partner, mask=ok[:, None], other=0.0).to(tl.float32)
half t_4[8];
#pragma unroll
for (int k = 0; (k < 8); k += 4) {
  int rows = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int i = ((int(thread_index_in_simdgroup) % 16) * 4);
  int first = ((rows * 128) + i);
  bool ok = (rows < n_rows);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (ok) mf_v = *((const device packed_half4*)(((x_ptr + first) + 64)));
    t_4[k] = mf_v[0];
    t_4[(k + 1)] = mf_v[1];
    t_4[(k + 2)] = mf_v[2];
    t_4[(k + 3)] = mf_v[3];
  }
}
float x2[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  x2[k] = static_cast<float>(t_4[k]);
}
// 65: tl.store(out_ptr + first, x1 * c - x2 * s, mask=ok[:, None])
float t_5[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_5[k] = (x1[k] * c[k]);
}
float t_6[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_6[k] = (x2[k] * s[k]);
}
float t_7[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_7[k] = (t_5[k] - t_6[k]);
}
half t_8[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_8[k] = static_cast<half>(t_7[k]);
}
#pragma unroll
for (int k = 0; (k < 8); k += 4) {
  int rows = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int i = ((int(thread_index_in_simdgroup) % 16) * 4);
  int first = ((rows * 128) + i);
  bool ok = (rows < n_rows);
  if (ok) {
    *((device packed_half4*)((out_ptr + first))) = packed_half4(t_8[k], t_8[(k + 1)], t_8[(k + 2)], t_8[(k + 3)]);
  }
}
// 66: tl.store(out_ptr + first + partner, x1 * s + x2 * c, mask=ok[:, None])
float t_9[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_9[k] = (x1[k] * s[k]);
}
float t_10[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_10[k] = (x2[k] * c[k]);
}
float t_11[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_11[k] = (t_9[k] + t_10[k]);
}
half t_12[8];
#pragma unroll
for (int k = 0; (k < 8); k += 1) {
  t_12[k] = static_cast<half>(t_11[k]);
}
#pragma unroll
for (int k = 0; (k < 8); k += 4) {
  int rows = (t + ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))));
  int i = ((int(thread_index_in_simdgroup) % 16) * 4);
  int first = ((rows * 128) + i);
  bool ok = (rows < n_rows);
  if (ok) {
    *((device packed_half4*)(((out_ptr + first) + 64))) = packed_half4(t_12[k], t_12[(k + 1)], t_12[(k + 2)], t_12[(k + 3)]);
  }
}
