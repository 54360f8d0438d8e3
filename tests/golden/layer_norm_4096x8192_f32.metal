// 105: row = tl.program_id(0)
// 106: offs = tl.arange(0, BLOCK)
// 107: mask = offs < n_cols
// 108: x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
int t = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(x_ptr) t_1 = (x_ptr + t);
float x[32];
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  {
    packed_float4 mf_v = packed_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (mask) mf_v = *((const device packed_float4*)((t_1 + offs)));
    x[k] = mf_v[0];
    x[(k + 1)] = mf_v[1];
    x[(k + 2)] = mf_v[2];
    x[(k + 3)] = mf_v[3];
  }
}
// 109: mean = tl.sum(x, axis=0) / n_cols
float acc[1];
acc[0] = x[0];
acc[0] = (acc[0] + x[1]);
acc[0] = (acc[0] + x[2]);
acc[0] = (acc[0] + x[3]);
acc[0] = (acc[0] + x[4]);
acc[0] = (acc[0] + x[5]);
acc[0] = (acc[0] + x[6]);
acc[0] = (acc[0] + x[7]);
acc[0] = (acc[0] + x[8]);
acc[0] = (acc[0] + x[9]);
acc[0] = (acc[0] + x[10]);
acc[0] = (acc[0] + x[11]);
acc[0] = (acc[0] + x[12]);
acc[0] = (acc[0] + x[13]);
acc[0] = (acc[0] + x[14]);
acc[0] = (acc[0] + x[15]);
acc[0] = (acc[0] + x[16]);
acc[0] = (acc[0] + x[17]);
acc[0] = (acc[0] + x[18]);
acc[0] = (acc[0] + x[19]);
acc[0] = (acc[0] + x[20]);
acc[0] = (acc[0] + x[21]);
acc[0] = (acc[0] + x[22]);
acc[0] = (acc[0] + x[23]);
acc[0] = (acc[0] + x[24]);
acc[0] = (acc[0] + x[25]);
acc[0] = (acc[0] + x[26]);
acc[0] = (acc[0] + x[27]);
acc[0] = (acc[0] + x[28]);
acc[0] = (acc[0] + x[29]);
acc[0] = (acc[0] + x[30]);
acc[0] = (acc[0] + x[31]);
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
float t_2 = acc[0];
float t_3 = static_cast<float>(n_cols);
float mean = (t_2 / t_3);
// 110: xc = tl.where(mask, x - mean, 0.0)
float xc[32];
float t_5[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  float t_4 = (x[k] - mean);
  int offs = ((((k / 4) * 1024) + (int(thread_index_in_threadgroup) * 4)) + (k % 4));
  bool mask = (offs < n_cols);
  xc[k] = (mask ? t_4 : 0.0f);
  // 111: rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
  t_5[k] = (xc[k] * xc[k]);
}
float acc_1[1];
acc_1[0] = t_5[0];
acc_1[0] = (acc_1[0] + t_5[1]);
acc_1[0] = (acc_1[0] + t_5[2]);
acc_1[0] = (acc_1[0] + t_5[3]);
acc_1[0] = (acc_1[0] + t_5[4]);
acc_1[0] = (acc_1[0] + t_5[5]);
acc_1[0] = (acc_1[0] + t_5[6]);
acc_1[0] = (acc_1[0] + t_5[7]);
acc_1[0] = (acc_1[0] + t_5[8]);
acc_1[0] = (acc_1[0] + t_5[9]);
acc_1[0] = (acc_1[0] + t_5[10]);
acc_1[0] = (acc_1[0] + t_5[11]);
acc_1[0] = (acc_1[0] + t_5[12]);
acc_1[0] = (acc_1[0] + t_5[13]);
acc_1[0] = (acc_1[0] + t_5[14]);
acc_1[0] = (acc_1[0] + t_5[15]);
acc_1[0] = (acc_1[0] + t_5[16]);
acc_1[0] = (acc_1[0] + t_5[17]);
acc_1[0] = (acc_1[0] + t_5[18]);
acc_1[0] = (acc_1[0] + t_5[19]);
acc_1[0] = (acc_1[0] + t_5[20]);
acc_1[0] = (acc_1[0] + t_5[21]);
acc_1[0] = (acc_1[0] + t_5[22]);
acc_1[0] = (acc_1[0] + t_5[23]);
acc_1[0] = (acc_1[0] + t_5[24]);
acc_1[0] = (acc_1[0] + t_5[25]);
acc_1[0] = (acc_1[0] + t_5[26]);
acc_1[0] = (acc_1[0] + t_5[27]);
acc_1[0] = (acc_1[0] + t_5[28]);
acc_1[0] = (acc_1[0] + t_5[29]);
acc_1[0] = (acc_1[0] + t_5[30]);
acc_1[0] = (acc_1[0] + t_5[31]);
float partner_5 = simd_shuffle_xor(acc_1[0], ushort(1));
acc_1[0] = (acc_1[0] + partner_5);
float partner_6 = simd_shuffle_xor(acc_1[0], ushort(2));
acc_1[0] = (acc_1[0] + partner_6);
float partner_7 = simd_shuffle_xor(acc_1[0], ushort(4));
acc_1[0] = (acc_1[0] + partner_7);
float partner_8 = simd_shuffle_xor(acc_1[0], ushort(8));
acc_1[0] = (acc_1[0] + partner_8);
float partner_9 = simd_shuffle_xor(acc_1[0], ushort(16));
acc_1[0] = (acc_1[0] + partner_9);
threadgroup float acc_1_smem[8];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (((int(thread_index_in_simdgroup) == 0) && (int(simdgroup_index_in_threadgroup) < 8))) {
  acc_1_smem[int(simdgroup_index_in_threadgroup)] = acc_1[0];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
acc_1[0] = acc_1_smem[0];
acc_1[0] = (acc_1[0] + acc_1_smem[1]);
acc_1[0] = (acc_1[0] + acc_1_smem[2]);
acc_1[0] = (acc_1[0] + acc_1_smem[3]);
acc_1[0] = (acc_1[0] + acc_1_smem[4]);
acc_1[0] = (acc_1[0] + acc_1_smem[5]);
acc_1[0] = (acc_1[0] + acc_1_smem[6]);
acc_1[0] = (acc_1[0] + acc_1_smem[7]);
float t_6 = acc_1[0];
float t_7 = static_cast<float>(n_cols);
float t_8 = (t_6 / t_7);
float t_9 = (t_8 + eps);
float t_10 = metal::sqrt(t_9);
float rstd = (1.0f / t_10);
// 112: w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
int t_11 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(out_ptr) t_12 = (out_ptr + t_11);
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  float w_0;
  float w_1;
  float w_2;
  float w_3;
  {
    packed_float4 mf_v = packed_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (mask) mf_v = *((const device packed_float4*)((w_ptr + offs)));
    w_0 = mf_v[0];
    w_1 = mf_v[1];
    w_2 = mf_v[2];
    w_3 = mf_v[3];
  }
  // 113: b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
  float b_0;
  float b_1;
  float b_2;
  float b_3;
  {
    packed_float4 mf_v = packed_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (mask) mf_v = *((const device packed_float4*)((b_ptr + offs)));
    b_0 = mf_v[0];
    b_1 = mf_v[1];
    b_2 = mf_v[2];
    b_3 = mf_v[3];
  }
  // 114: tl.store(out_ptr + row * n_cols + offs, xc * rstd * w + b, mask=mask)
  float t_13_0 = (xc[k] * rstd);
  float t_13_1 = (xc[(k + 1)] * rstd);
  float t_13_2 = (xc[(k + 2)] * rstd);
  float t_13_3 = (xc[(k + 3)] * rstd);
  float t_14_0 = (t_13_0 * w_0);
  float t_14_1 = (t_13_1 * w_1);
  float t_14_2 = (t_13_2 * w_2);
  float t_14_3 = (t_13_3 * w_3);
  float t_15_0 = (t_14_0 + b_0);
  float t_15_1 = (t_14_1 + b_1);
  float t_15_2 = (t_14_2 + b_2);
  float t_15_3 = (t_14_3 + b_3);
  if (mask) {
    *((device packed_float4*)((t_12 + offs))) = packed_float4(t_15_0, t_15_1, t_15_2, t_15_3);
  }
}
// 115: tl.store(mean_ptr + row, mean)
decltype(mean_ptr) t_16 = (mean_ptr + int(threadgroup_position_in_grid.x));
if ((int(thread_index_in_threadgroup) == 0)) {
  *(t_16) = mean;
}
// 116: tl.store(rstd_ptr + row, rstd)
decltype(rstd_ptr) t_17 = (rstd_ptr + int(threadgroup_position_in_grid.x));
if ((int(thread_index_in_threadgroup) == 0)) {
  *(t_17) = rstd;
}
