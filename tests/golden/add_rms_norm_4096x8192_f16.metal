// 90: row = tl.program_id(0)
// 91: offs = tl.arange(0, BLOCK)
// 92: mask = offs < n_cols
// 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
int t = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(x_ptr) t_1 = (x_ptr + t);
int t_4 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(res_ptr) t_5 = (res_ptr + t_4);
float h[32];
int t_8 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(sum_ptr) t_9 = (sum_ptr + t_8);
float t_11[32];
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  half t_2_0;
  half t_2_1;
  half t_2_2;
  half t_2_3;
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (mask) mf_v = *((const device packed_half4*)((t_1 + offs)));
    t_2_0 = mf_v[0];
    t_2_1 = mf_v[1];
    t_2_2 = mf_v[2];
    t_2_3 = mf_v[3];
  }
  float t_3_0 = static_cast<float>(t_2_0);
  float t_3_1 = static_cast<float>(t_2_1);
  float t_3_2 = static_cast<float>(t_2_2);
  float t_3_3 = static_cast<float>(t_2_3);
  // 94: + tl.load(res_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
  half t_6_0;
  half t_6_1;
  half t_6_2;
  half t_6_3;
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (mask) mf_v = *((const device packed_half4*)((t_5 + offs)));
    t_6_0 = mf_v[0];
    t_6_1 = mf_v[1];
    t_6_2 = mf_v[2];
    t_6_3 = mf_v[3];
  }
  float t_7_0 = static_cast<float>(t_6_0);
  float t_7_1 = static_cast<float>(t_6_1);
  float t_7_2 = static_cast<float>(t_6_2);
  float t_7_3 = static_cast<float>(t_6_3);
  // 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
  h[k] = (t_3_0 + t_7_0);
  h[(k + 1)] = (t_3_1 + t_7_1);
  h[(k + 2)] = (t_3_2 + t_7_2);
  h[(k + 3)] = (t_3_3 + t_7_3);
  // 95: tl.store(sum_ptr + row * n_cols + offs, h, mask=mask)
  half t_10_0 = static_cast<half>(h[k]);
  half t_10_1 = static_cast<half>(h[(k + 1)]);
  half t_10_2 = static_cast<half>(h[(k + 2)]);
  half t_10_3 = static_cast<half>(h[(k + 3)]);
  if (mask) {
    *((device packed_half4*)((t_9 + offs))) = packed_half4(t_10_0, t_10_1, t_10_2, t_10_3);
  }
  // 68: rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / n_cols + eps)
  t_11[k] = (h[k] * h[k]);
  t_11[(k + 1)] = (h[(k + 1)] * h[(k + 1)]);
  t_11[(k + 2)] = (h[(k + 2)] * h[(k + 2)]);
  t_11[(k + 3)] = (h[(k + 3)] * h[(k + 3)]);
}
float acc[1];
acc[0] = t_11[0];
acc[0] = (acc[0] + t_11[1]);
acc[0] = (acc[0] + t_11[2]);
acc[0] = (acc[0] + t_11[3]);
acc[0] = (acc[0] + t_11[4]);
acc[0] = (acc[0] + t_11[5]);
acc[0] = (acc[0] + t_11[6]);
acc[0] = (acc[0] + t_11[7]);
acc[0] = (acc[0] + t_11[8]);
acc[0] = (acc[0] + t_11[9]);
acc[0] = (acc[0] + t_11[10]);
acc[0] = (acc[0] + t_11[11]);
acc[0] = (acc[0] + t_11[12]);
acc[0] = (acc[0] + t_11[13]);
acc[0] = (acc[0] + t_11[14]);
acc[0] = (acc[0] + t_11[15]);
acc[0] = (acc[0] + t_11[16]);
acc[0] = (acc[0] + t_11[17]);
acc[0] = (acc[0] + t_11[18]);
acc[0] = (acc[0] + t_11[19]);
acc[0] = (acc[0] + t_11[20]);
acc[0] = (acc[0] + t_11[21]);
acc[0] = (acc[0] + t_11[22]);
acc[0] = (acc[0] + t_11[23]);
acc[0] = (acc[0] + t_11[24]);
acc[0] = (acc[0] + t_11[25]);
acc[0] = (acc[0] + t_11[26]);
acc[0] = (acc[0] + t_11[27]);
acc[0] = (acc[0] + t_11[28]);
acc[0] = (acc[0] + t_11[29]);
acc[0] = (acc[0] + t_11[30]);
acc[0] = (acc[0] + t_11[31]);
float partner = simd_shuffle_xor(acc[0], ushort(1));
acc[0] = (acc[0] + partner);
float partner_1 = simd_shuffle_xor(acc[0], ushort(2));
acc[0] = (acc[0] + partner_1);
float partner_2 = simd_shuffle_xor(acc[0], ushort(4));
acc[0] = (acc[0] + partner_2);
float partner_3 = simd_shuffle_xor(acc[0], ushort(8));
acc[0] = (acc[0] + partner_3);
float partner_4 = simd_shuffle_xor(acc[0], ushort(16));
acc[0] = (acc[0] + partner_4);
threadgroup float acc_smem[8];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (((int(thread_index_in_simdgroup) == 0) && (int(simdgroup_index_in_threadgroup) < 8))) {
  acc_smem[int(simdgroup_index_in_threadgroup)] = acc[0];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
acc[0] = acc_smem[0];
acc[0] = (acc[0] + acc_smem[1]);
acc[0] = (acc[0] + acc_smem[2]);
acc[0] = (acc[0] + acc_smem[3]);
acc[0] = (acc[0] + acc_smem[4]);
acc[0] = (acc[0] + acc_smem[5]);
acc[0] = (acc[0] + acc_smem[6]);
acc[0] = (acc[0] + acc_smem[7]);
float t_12 = acc[0];
float t_13 = static_cast<float>(n_cols);
float t_14 = (t_12 / t_13);
float t_15 = (t_14 + eps);
float t_16 = metal::sqrt(t_15);
float rstd = (1.0f / t_16);
// 69: return h * rstd * tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
int t_20 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(out_ptr) t_21 = (out_ptr + t_20);
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  float t_17_0 = (h[k] * rstd);
  float t_17_1 = (h[(k + 1)] * rstd);
  float t_17_2 = (h[(k + 2)] * rstd);
  float t_17_3 = (h[(k + 3)] * rstd);
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  half t_18_0;
  half t_18_1;
  half t_18_2;
  half t_18_3;
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (mask) mf_v = *((const device packed_half4*)((w_ptr + offs)));
    t_18_0 = mf_v[0];
    t_18_1 = mf_v[1];
    t_18_2 = mf_v[2];
    t_18_3 = mf_v[3];
  }
  float t_19_0 = static_cast<float>(t_18_0);
  float t_19_1 = static_cast<float>(t_18_1);
  float t_19_2 = static_cast<float>(t_18_2);
  float t_19_3 = static_cast<float>(t_18_3);
  float y_0 = (t_17_0 * t_19_0);
  float y_1 = (t_17_1 * t_19_1);
  float y_2 = (t_17_2 * t_19_2);
  float y_3 = (t_17_3 * t_19_3);
  // 97: tl.store(out_ptr + row * n_cols + offs, y, mask=mask)
  half t_22_0 = static_cast<half>(y_0);
  half t_22_1 = static_cast<half>(y_1);
  half t_22_2 = static_cast<half>(y_2);
  half t_22_3 = static_cast<half>(y_3);
  if (mask) {
    *((device packed_half4*)((t_21 + offs))) = packed_half4(t_22_0, t_22_1, t_22_2, t_22_3);
  }
}
