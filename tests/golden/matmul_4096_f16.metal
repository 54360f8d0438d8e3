// 63: pid = tl.program_id(0)
// 64: num_pid_m = tl.cdiv(M, BLOCK_M)
int t = (M + 64);
int t_1 = (t - 1);
int num_pid_m = (t_1 / 64);
// 65: num_pid_n = tl.cdiv(N, BLOCK_N)
int t_2 = (N + 64);
int t_3 = (t_2 - 1);
int num_pid_n = (t_3 / 64);
// 66: num_pid_in_group = GROUP_M * num_pid_n
int num_pid_in_group = (8 * num_pid_n);
// 67: first_pid_m = (pid // num_pid_in_group) * GROUP_M
int t_4 = (int(threadgroup_position_in_grid.x) / num_pid_in_group);
int first_pid_m = (t_4 * 8);
// 68: group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may have fewer tile rows
int t_5 = (num_pid_m - first_pid_m);
int group_size_m = metal::min(t_5, 8);
// 69: pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
int t_6 = (int(threadgroup_position_in_grid.x) % num_pid_in_group);
int t_7 = (t_6 % group_size_m);
int pid_m = (first_pid_m + t_7);
// 70: pid_n = (pid % num_pid_in_group) // group_size_m
int t_8 = (int(threadgroup_position_in_grid.x) % num_pid_in_group);
int pid_n = (t_8 / group_size_m);
// 71: rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
int t_9 = (pid_m * 64);
// 72: rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
int t_10 = (pid_n * 64);
// 73: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
// 74: for k0 in range(0, K, BLOCK_K):
// 75: rk = k0 + tl.arange(0, BLOCK_K)
// 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
// 74: for k0 in range(0, K, BLOCK_K):
bool t_11 = (0 < K);
// 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
half a[16];
int t_12 = 32;
decltype(a_ptr) a_ptr_1 = (a_ptr + t_12);
int t_13 = 32;
bool t_14 = (0 < K);
half b[16];
#pragma unroll
for (int k = 0; (k < 16); k += 4) {
  int rm = (t_9 + ((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))));
  int rk = ((int(thread_index_in_simdgroup) % 8) * 4);
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (((rm < M) & t_11)) mf_v = *((const device packed_half4*)(((a_ptr + (rm * K)) + rk)));
    a[k] = mf_v[0];
    a[(k + 1)] = mf_v[1];
    a[(k + 2)] = mf_v[2];
    a[(k + 3)] = mf_v[3];
  }
  // 75: rk = k0 + tl.arange(0, BLOCK_K)
  // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  // 74: for k0 in range(0, K, BLOCK_K):
  // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
  int rk_1 = ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
  int rn = (t_10 + ((int(thread_index_in_simdgroup) % 16) * 4));
  {
    packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
    if (((rn < N) & t_14)) mf_v = *((const device packed_half4*)(((b_ptr + (rk_1 * N)) + rn)));
    b[k] = mf_v[0];
    b[(k + 1)] = mf_v[1];
    b[(k + 2)] = mf_v[2];
    b[(k + 3)] = mf_v[3];
  }
}
int t_15 = N;
int t_16 = (t_15 * 32);
decltype(b_ptr) b_ptr_1 = (b_ptr + t_16);
int t_17 = (t_15 * 32);
// 74: for k0 in range(0, K, BLOCK_K):
simdgroup_matrix<float, 8, 8> acc[16];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  float acc_1 = 0.0f;
  acc[(k / 2)].thread_elements()[(k % 2)] = acc_1;
}
decltype(a_ptr) a_ptr_k;
a_ptr_k = a_ptr_1;
half t_18[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_18[k] = a[k];
}
decltype(b_ptr) b_ptr_k;
b_ptr_k = b_ptr_1;
half t_19[16];
#pragma unroll
for (int k = 0; (k < 16); k += 1) {
  t_19[k] = b[k];
}
int stage = 0;
for (int k0 = 0; (k0 < K); k0 += 32) {
  // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  int k0_next = (k0 + 32);
  bool t_20 = (k0_next < K);
  // 75: rk = k0 + tl.arange(0, BLOCK_K)
  // 76: a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
  int rm = t_9;
  half a_1[16];
  decltype(a_ptr) a_ptr_next = (a_ptr_k + t_13);
  int k0_next_1 = (k0 + 32);
  bool t_21 = (k0_next_1 < K);
  int rn = t_10;
  half b_1[16];
  decltype(b_ptr) b_ptr_next = (b_ptr_k + t_17);
  threadgroup half a_2_smem[5120];
  threadgroup half b_2_smem[4608];
  #pragma unroll
  for (int k = 0; (k < 16); k += 4) {
    int rm_1 = (t_9 + ((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))));
    int rk_3 = ((int(thread_index_in_simdgroup) % 8) * 4);
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (((rm_1 < M) & t_20)) mf_v = *((const device packed_half4*)(((a_ptr_k + (rm_1 * K)) + rk_3)));
      a_1[k] = mf_v[0];
      a_1[(k + 1)] = mf_v[1];
      a_1[(k + 2)] = mf_v[2];
      a_1[(k + 3)] = mf_v[3];
    }
    // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    // 75: rk = k0 + tl.arange(0, BLOCK_K)
    // 77: b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    int rk_5 = ((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16)));
    int rn_1 = (t_10 + ((int(thread_index_in_simdgroup) % 16) * 4));
    {
      packed_half4 mf_v = packed_half4(half(0.0f), half(0.0f), half(0.0f), half(0.0f));
      if (((rn_1 < N) & t_21)) mf_v = *((const device packed_half4*)(((b_ptr_k + (rk_5 * N)) + rn_1)));
      b_1[k] = mf_v[0];
      b_1[(k + 1)] = mf_v[1];
      b_1[(k + 2)] = mf_v[2];
      b_1[(k + 3)] = mf_v[3];
    }
    // 78: acc = tl.dot(a, b, acc)
    *((threadgroup packed_half4*)((a_2_smem + ((stage * 2560) + ((((k * 4) + ((int(simdgroup_index_in_threadgroup) * 4) + (int(thread_index_in_simdgroup) / 8))) * 40) + ((int(thread_index_in_simdgroup) % 8) * 4)))))) = packed_half4(t_18[k], t_18[(k + 1)], t_18[(k + 2)], t_18[(k + 3)]);
    *((threadgroup packed_half4*)((b_2_smem + ((stage * 2304) + ((((k * 2) + ((int(simdgroup_index_in_threadgroup) * 2) + (int(thread_index_in_simdgroup) / 16))) * 72) + ((int(thread_index_in_simdgroup) % 16) * 4)))))) = packed_half4(t_19[k], t_19[(k + 1)], t_19[(k + 2)], t_19[(k + 3)]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  int frag_row = (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4));
  int frag_col = ((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2));
  int warp_row = ((int(simdgroup_index_in_threadgroup) / 2) * 8);
  int warp_col = ((int(simdgroup_index_in_threadgroup) % 2) * 8);
  #pragma unroll
  for (int kk = 0; (kk < 32); kk += 8) {
    simdgroup_matrix<float, 8, 8> frag_a[4];
    simdgroup_matrix<float, 8, 8> frag_b[4];
    #pragma unroll
    for (int i = 0; (i < 4); i += 1) {
      frag_a[i].thread_elements()[0] = static_cast<float>(a_2_smem[((stage * 2560) + ((((warp_row + (i * 16)) + frag_row) * 40) + (kk + frag_col)))]);
      frag_a[i].thread_elements()[1] = static_cast<float>(a_2_smem[((stage * 2560) + ((((warp_row + (i * 16)) + frag_row) * 40) + (kk + (frag_col + 1))))]);
    }
    #pragma unroll
    for (int j = 0; (j < 4); j += 1) {
      frag_b[j].thread_elements()[0] = static_cast<float>(b_2_smem[((stage * 2304) + (((kk + frag_row) * 72) + ((warp_col + (j * 16)) + frag_col)))]);
      frag_b[j].thread_elements()[1] = static_cast<float>(b_2_smem[((stage * 2304) + (((kk + frag_row) * 72) + ((warp_col + (j * 16)) + (frag_col + 1))))]);
    }
    #pragma unroll
    for (int i = 0; (i < 4); i += 1) {
      #pragma unroll
      for (int j = 0; (j < 4); j += 1) {
        simdgroup_multiply_accumulate(acc[((i * 4) + j)], frag_a[i], frag_b[j], acc[((i * 4) + j)]);
      }
    }
  }
  decltype(a_ptr) a_ptr_next_1;
  a_ptr_next_1 = a_ptr_next;
  half a_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    a_3[k] = a_1[k];
  }
  decltype(b_ptr) b_ptr_next_1;
  b_ptr_next_1 = b_ptr_next;
  half b_3[16];
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    b_3[k] = b_1[k];
  }
  a_ptr_k = a_ptr_next_1;
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_18[k] = a_3[k];
  }
  b_ptr_k = b_ptr_next_1;
  #pragma unroll
  for (int k = 0; (k < 16); k += 1) {
    t_19[k] = b_3[k];
  }
  stage = ((stage < 1) ? (stage + 1) : (stage - 1));
}
// 79: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
half t_22[32];
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  t_22[k] = static_cast<half>(acc[(k / 2)].thread_elements()[(k % 2)]);
}
// 80: mask=(rm[:, None] < M) & (rn[None, :] < N))
// 79: tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
#pragma unroll
for (int k = 0; (k < 32); k += 1) {
  int rm = (t_9 + ((((((k / 2) / 4) * 2) + (int(simdgroup_index_in_threadgroup) / 2)) * 8) + (((int(thread_index_in_simdgroup) / 16) * 4) + ((int(thread_index_in_simdgroup) / 2) % 4))));
  int rn = (t_10 + ((((((k / 2) % 4) * 2) + (int(simdgroup_index_in_threadgroup) % 2)) * 8) + (((((int(thread_index_in_simdgroup) / 8) % 2) * 4) + ((int(thread_index_in_simdgroup) % 2) * 2)) + (k % 2))));
  if (((rm < M) & (rn < N))) {
    *(((c_ptr + (rm * N)) + rn)) = t_22[k];
  }
}
