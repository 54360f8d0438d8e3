// 90: row = tl.program_id(0)
// 91: offs = tl.arange(0, BLOCK)
// 92: mask = offs < n_cols
// 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
int t = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(x_ptr) t_1 = (x_ptr + t);
half t_2[32];
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (mask) mf_v = *((const device packed_half4*)((t_1 + offs)));
    t_2[k] = mf_v[0];
    t_2[(k + 1)] = mf_v[1];
    t_2[(k + 2)] = mf_v[2];
    t_2[(k + 3)] = mf_v[3];
  }
}
float t_3[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_3[k] = static_cast<float>(t_2[k]);
}
// 94: + tl.load(res_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
int t_4 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(res_ptr) t_5 = (res_ptr + t_4);
half t_6[32];
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (mask) mf_v = *((const device packed_half4*)((t_5 + offs)));
    t_6[k] = mf_v[0];
    t_6[(k + 1)] = mf_v[1];
    t_6[(k + 2)] = mf_v[2];
    t_6[(k + 3)] = mf_v[3];
  }
}
float t_7[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_7[k] = static_cast<float>(t_6[k]);
}
// 93: h = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
float h[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  h[k] = (t_3[k] + t_7[k]);
}
// 95: tl.store(sum_ptr + row * n_cols + offs, h, mask=mask)
int t_8 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(sum_ptr) t_9 = (sum_ptr + t_8);
half t_10[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_10[k] = static_cast<half>(h[k]);
}
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  if (mask) {
    *((device packed_half4*)((t_9 + offs))) = packed_half4(t_10[k], t_10[(k + 1)], t_10[(k + 2)], t_10[(k + 3)]);
  }
}
// 68: rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / n_cols + eps)
float t_11[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_11[k] = (h[k] * h[k]);
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
float t_17[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_17[k] = (h[k] * rstd);
}
half t_18[32];
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (mask) mf_v = *((const device packed_half4*)((w_ptr + offs)));
    t_18[k] = mf_v[0];
    t_18[(k + 1)] = mf_v[1];
    t_18[(k + 2)] = mf_v[2];
    t_18[(k + 3)] = mf_v[3];
  }
}
float t_19[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_19[k] = static_cast<float>(t_18[k]);
}
float y[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  y[k] = (t_17[k] * t_19[k]);
}
// 97: tl.store(out_ptr + row * n_cols + offs, y, mask=mask)
int t_20 = (int(threadgroup_position_in_grid.x) * n_cols);
decltype(out_ptr) t_21 = (out_ptr + t_20);
half t_22[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_22[k] = static_cast<half>(y[k]);
}
#pragma unroll
for (int k = 0; (k < 32); k += 4) {
  int offs = ((k * 256) + (int(thread_index_in_threadgroup) * 4));
  bool mask = (offs < n_cols);
  if (mask) {
    *((device packed_half4*)((t_21 + offs))) = packed_half4(t_22[k], t_22[(k + 1)], t_22[(k + 2)], t_22[(k + 3)]);
  }
}
