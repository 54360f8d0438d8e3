// metalforge emulator: Metal 4's <metal_tensor> and <metal_cooperative_tensor>, the subset that
// MetalPerformancePrimitives' matmul2d needs (docs/emulator.md, "Metal 4 tensor ops").
//
// Included after <metal_stdlib>, i.e. after lang.h: `std` is poisoned and device / constant /
// threadgroup are address-space macros here, so this header uses no standard library and
// writes its own few type traits. Extents are listed innermost first, as in Metal: a row-major
// M x K matrix is extents (K, M) with strides {1, row_pitch}.
#pragma once

namespace mfemu {
namespace tt {  // the type traits this header needs (std is poisoned here)
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <class T, class U> constexpr bool is_same_v = __is_same(T, U);
template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_ref { typedef T type; };
template <class T> struct remove_ref<T&> { typedef T type; };
template <class T> struct remove_ref<T&&> { typedef T type; };
// Address space of a (possibly const) element type: 0 thread, 1 device, 2 constant, 3 threadgroup.
template <class T> struct space { static constexpr int value = 0; typedef T type; };
template <class T> struct space<device T> { static constexpr int value = 1; typedef T type; };
template <class T> struct space<constant T> { static constexpr int value = 2; typedef T type; };
template <class T> struct space<threadgroup T> { static constexpr int value = 3; typedef T type; };
template <class T> constexpr int space_v = space<T>::value;
// The element's value type: no address space, no const.
template <class T> using value_t = typename remove_const<typename space<T>::type>::type;
template <class T> constexpr bool is_const_v = !__is_same(typename space<T>::type, value_t<T>);
template <class T> using plain_t = typename remove_const<typename remove_ref<T>::type>::type;
}  // namespace tt
}  // namespace mfemu

namespace metal {
constexpr size_t dynamic_extent = size_t(-1);

// ---- metal::array: a fixed-size aggregate, `array<int32_t, 2>({1, 24})` ----------------------
template <class T, size_t N> struct array {
  T mfemu_elems[N > 0 ? N : 1];
  constexpr T& operator[](size_t i) { return mfemu_elems[i]; }
  constexpr const T& operator[](size_t i) const { return mfemu_elems[i]; }
  static constexpr size_t size() { return N; }
  static constexpr bool empty() { return N == 0; }
  constexpr T* data() { return mfemu_elems; }
  constexpr const T* data() const { return mfemu_elems; }
  constexpr T* begin() { return mfemu_elems; }
  constexpr T* end() { return mfemu_elems + N; }
  constexpr const T* begin() const { return mfemu_elems; }
  constexpr const T* end() const { return mfemu_elems + N; }
};

// ---- extents<IndexType, E...>: static sizes, dynamic_extent for run-time ones ----------------
template <class IndexType, size_t... Extents> struct extents {
  static_assert(sizeof...(Extents) <= 16, "extents: Metal tensors have rank 16 at most");
  typedef IndexType index_type;
  typedef size_t size_type;
  typedef size_t rank_type;
  static constexpr rank_type rank() { return sizeof...(Extents); }
  static constexpr rank_type rank_dynamic() { return ((Extents == dynamic_extent ? 1 : 0) + ... + 0); }
  static constexpr size_t static_extent(rank_type r) {
    constexpr size_t e[] = {Extents..., 0};
    return e[r];
  }
  constexpr index_type extent(rank_type r) const {
    return static_extent(r) == dynamic_extent ? mfemu_dyn[dynamic_index(r)] : index_type(static_extent(r));
  }
  constexpr extents() : mfemu_dyn{} {}
  // extents(e...) with one value per dimension, or one per dynamic dimension.
  template <class... I, mfemu::tt::enable_if_t<(sizeof...(I) > 0) && (sizeof...(I) == rank() || sizeof...(I) == rank_dynamic()), int> = 0>
  constexpr explicit extents(I... values) : mfemu_dyn{} {
    index_type v[] = {index_type(values)...};
    if constexpr (sizeof...(I) == rank()) {
      for (rank_type r = 0; r < rank(); r++)
        if (static_extent(r) == dynamic_extent) mfemu_dyn[dynamic_index(r)] = v[r];
    } else {
      for (rank_type r = 0; r < rank_dynamic(); r++) mfemu_dyn[r] = v[r];
    }
  }
  static constexpr rank_type dynamic_index(rank_type r) {
    rank_type n = 0;
    for (rank_type i = 0; i < r; i++) n += static_extent(i) == dynamic_extent ? 1 : 0;
    return n;
  }
  index_type mfemu_dyn[rank_dynamic() > 0 ? rank_dynamic() : 1];
};

namespace detail {
template <class I, size_t R, size_t... E> struct make_dextents { typedef typename make_dextents<I, R - 1, dynamic_extent, E...>::type type; };
template <class I, size_t... E> struct make_dextents<I, 0, E...> { typedef extents<I, E...> type; };
template <class T> struct is_extents { static constexpr bool value = false; };
template <class I, size_t... E> struct is_extents<extents<I, E...>> { static constexpr bool value = true; };
}  // namespace detail
template <class IndexType, size_t Rank> using dextents = typename detail::make_dextents<IndexType, Rank>::type;

// ---- tensor<ElementType, Extents, Descriptor, Tags...> ---------------------------------------
// ElementType carries the address space (`threadgroup half`), so pointers of the wrong space do
// not convert, as on Metal.
struct tensor_inline {};
struct tensor_handle {};
struct tensor_offset {};

template <class ElementType, class Extents, class Descriptor = tensor_handle, class... Tags> struct tensor;

namespace detail {
template <class T> constexpr bool is_tensor_descriptor_v = __is_same(T, tensor_handle) || __is_same(T, tensor_inline);
template <class D, class... Tags> constexpr bool tags_ok_v =
    sizeof...(Tags) == 0 || (sizeof...(Tags) == 1 && __is_same(D, tensor_handle) && (__is_same(Tags, tensor_offset) && ...));
template <class E, class D> constexpr bool space_ok_v =
    __is_same(D, tensor_inline) || mfemu::tt::space_v<E> == 1 || mfemu::tt::space_v<E> == 2;
template <class T> struct tensor_traits { static constexpr bool is_tensor = false; };
template <class E, class X, class D, class... Tags> struct tensor_traits<tensor<E, X, D, Tags...>> {
  static constexpr bool is_tensor = true;
  static constexpr bool is_handle = __is_same(D, tensor_handle);
  static constexpr bool is_inline = __is_same(D, tensor_inline);
  static constexpr bool has_offset = sizeof...(Tags) > 0;
};
// What slicing a tensor gives: the same descriptor; a handle gains the tensor_offset tag.
template <class E, class X, class D> struct slice_of { typedef tensor<E, X, D> type; };
template <class E, class X> struct slice_of<E, X, tensor_handle> { typedef tensor<E, X, tensor_handle, tensor_offset> type; };
}  // namespace detail

template <class T> constexpr bool is_tensor_v = detail::tensor_traits<mfemu::tt::plain_t<T>>::is_tensor;
template <class T> constexpr bool is_tensor_inline_v = detail::tensor_traits<mfemu::tt::plain_t<T>>::is_inline;
template <class T> constexpr bool is_tensor_handle_v = detail::tensor_traits<mfemu::tt::plain_t<T>>::is_handle;
template <class T> constexpr bool has_tensor_offset_v = detail::tensor_traits<mfemu::tt::plain_t<T>>::has_offset;

template <class ElementType, class Extents, class Descriptor, class... Tags> struct tensor {
  static_assert(detail::is_tensor_descriptor_v<Descriptor>,
                "tensor: Descriptor template parameter must be one of tensor_handle or tensor_inline");
  static_assert(detail::is_extents<Extents>::value, "tensor: Extents must be metal::extents<IndexType, E...> or dextents<IndexType, Rank>");
  static_assert(detail::tags_ok_v<Descriptor, Tags...>, "tensor: the only tag is tensor_offset, on a tensor_handle");
  static_assert(detail::space_ok_v<ElementType, Descriptor>,
                "tensor: a tensor_handle lives in device or constant memory; use tensor_inline for threadgroup or thread memory");

  typedef ElementType element_type;
  typedef mfemu::tt::value_t<ElementType> value_type;
  typedef Extents extents_type;
  typedef typename Extents::index_type index_type;
  typedef size_t size_type;
  typedef size_t rank_type;
  typedef ElementType* data_handle_type;
  typedef array<index_type, Extents::rank()> strides_type;

  static constexpr rank_type get_rank() { return Extents::rank(); }

  // tensor_inline over memory the kernel holds: packed strides {1, e0, e0*e1, ...} or explicit ones.
  tensor(ElementType* data, const Extents& e) : mfemu_data(data), mfemu_extents(e), mfemu_strides{} {
    require_inline();
    index_type s = 1;
    for (rank_type r = 0; r < get_rank(); r++) { mfemu_strides[r] = s; s *= e.extent(r); }
  }
  tensor(ElementType* data, const Extents& e, const strides_type& strides) : mfemu_data(data), mfemu_extents(e), mfemu_strides(strides) {
    require_inline();
  }

  index_type get_extent(rank_type r) const { return mfemu_extents.extent(r); }
  index_type get_stride(rank_type r) const { return mfemu_strides[r]; }
  static constexpr size_t get_static_extent(rank_type r) { return Extents::static_extent(r); }

  // slice(o0, o1, ...): origin moved to (o0, o1, ...), dynamic extents reduced accordingly.
  // slice<E0, E1, ...>(o0, o1, ...): the same with these extents (dynamic_extent: what remains).
  template <size_t... SliceExtents, class... I,
            mfemu::tt::enable_if_t<sizeof...(SliceExtents) == Extents::rank() && sizeof...(I) == Extents::rank(), int> = 0>
  typename detail::slice_of<ElementType, extents<index_type, SliceExtents...>, Descriptor>::type slice(I... origin) const {
    typedef extents<index_type, SliceExtents...> X;
    index_type o[] = {index_type(origin)...};
    long offset = 0;
    X e;
    for (rank_type r = 0; r < get_rank(); r++) {
      offset += long(o[r]) * long(mfemu_strides[r]);
      if (X::static_extent(r) == dynamic_extent) {
        index_type left = get_extent(r) - o[r];
        e.mfemu_dyn[X::dynamic_index(r)] = left > 0 ? left : index_type(0);
      }
    }
    typename detail::slice_of<ElementType, X, Descriptor>::type t(mfemu_data + offset, e, mfemu_strides, 0);
    return t;
  }
  template <class... I, mfemu::tt::enable_if_t<sizeof...(I) == Extents::rank() && (sizeof...(I) > 0), int> = 0>
  auto slice(I... origin) const {
    return slice_all_dynamic(dextents<index_type, Extents::rank()>(), origin...);
  }

  // Emulator internals (the pointer, extents and strides), public for the op implementations.
  ElementType* mfemu_data;
  Extents mfemu_extents;
  strides_type mfemu_strides;
  tensor(ElementType* data, const Extents& e, const strides_type& strides, int)  // any descriptor: slices
      : mfemu_data(data), mfemu_extents(e), mfemu_strides(strides) {}

 private:
  static void require_inline() {
    static_assert(__is_same(Descriptor, tensor_inline),
                  "tensor_handle tensors are bound from the host (MTLTensor), which mx.fast.metal_kernel cannot do: "
                  "build a tensor<..., tensor_inline> over the buffer pointer");
  }
  template <size_t... D, class... I> auto slice_all_dynamic(extents<index_type, D...>, I... origin) const {
    return this->template slice<D...>(origin...);
  }
};

// ---- execution scopes ----------------------------------------------------------------------
template <size_t Size> struct execution_simdgroups {
  static_assert(Size != 0, "execution_simdgroups<0> is not supported");
  typedef uint size_type;
  static constexpr size_t static_size = Size;
  constexpr size_type size() const { return Size; }
};
template <size_t Size> struct execution_threads {
  static_assert(Size == 1, "Only execution_thread<1> is supported");
  typedef uint size_type;
  static constexpr size_t static_size = Size;
  constexpr size_type size() const { return Size; }
};
typedef execution_simdgroups<1> execution_simdgroup;
typedef execution_threads<1> execution_thread;
template <class T> struct is_execution_simdgroups { static constexpr bool value = false; };
template <size_t N> struct is_execution_simdgroups<execution_simdgroups<N>> { static constexpr bool value = true; };
template <class T> constexpr bool is_execution_simdgroups_v = is_execution_simdgroups<mfemu::tt::plain_t<T>>::value;
template <class T> struct is_execution_thread { static constexpr bool value = false; };
template <size_t N> struct is_execution_thread<execution_threads<N>> { static constexpr bool value = true; };
template <class T> constexpr bool is_execution_thread_v = is_execution_thread<mfemu::tt::plain_t<T>>::value;

// ---- cooperative_tensor<ElementType, Extents, Layout> ---------------------------------------
// Owns this thread's share of a tensor distributed over an op's execution scope. Layout (made by
// the op) says which element each slot holds:
//   static capacity(); bool valid(thread_in_scope, slot); void index(thread_in_scope, slot, idx[rank])
// Slots start poisoned (0xFF bytes: NaN), since Metal leaves them uninitialised.
template <class ElementType, class Extents, class Layout> struct cooperative_tensor {
  static_assert(mfemu::tt::space_v<ElementType> == 0 && !mfemu::tt::is_const_v<ElementType>,
                "cooperative_tensor: the element type is an unqualified value type (half, float, ...)");
  typedef ElementType element_type;
  typedef ElementType value_type;
  typedef Extents extents_type;
  typedef typename Extents::index_type index_type;
  typedef size_t rank_type;
  typedef ushort thread_size_type;
  typedef ushort thread_index_type;
  typedef ElementType& reference;
  typedef const ElementType& const_reference;
  typedef Layout layout;
  static constexpr int mfemu_capacity = Layout::capacity();

  struct iterator {
    cooperative_tensor* mfemu_ct;
    int mfemu_idx;
    reference operator*() const { return (*mfemu_ct)[mfemu_idx]; }
    iterator& operator++() { ++mfemu_idx; return *this; }
    iterator operator++(int) { iterator old = *this; ++mfemu_idx; return old; }
    bool operator==(const iterator& o) const { return mfemu_idx == o.mfemu_idx; }
    bool operator!=(const iterator& o) const { return mfemu_idx != o.mfemu_idx; }
    bool is_valid_element() const { return mfemu_ct->is_valid_element(thread_index_type(mfemu_idx)); }
  };

  static constexpr rank_type get_rank() { return Extents::rank(); }
  thread_size_type get_capacity() const { return thread_size_type(mfemu_capacity); }
  bool is_valid_element(thread_index_type i) const { return int(i) < mfemu_capacity && Layout::valid(mfemu_thread, i); }
  bool is_valid_element(const iterator& it) const { return is_valid_element(thread_index_type(it.mfemu_idx)); }
  // Coordinates of slot i in the tensor, innermost first ({column, row} for a matrix).
  array<index_type, Extents::rank()> get_multidimensional_index(thread_index_type i) const {
    array<index_type, Extents::rank()> a{};
    int idx[Extents::rank()];
    Layout::index(mfemu_thread, i, idx);
    for (rank_type r = 0; r < get_rank(); r++) a[r] = index_type(idx[r]);
    return a;
  }
  reference operator[](thread_index_type i) { check(i); return mfemu_slots[i]; }
  const_reference operator[](thread_index_type i) const { check(i); return mfemu_slots[i]; }
  value_type get(thread_index_type i) const { return is_valid_element(i) ? mfemu_slots[i] : value_type(0); }
  void set(thread_index_type i, value_type v) { if (is_valid_element(i)) mfemu_slots[i] = v; }
  iterator begin() { return iterator{this, 0}; }
  iterator end() { return iterator{this, mfemu_capacity}; }

  // load/store: this thread's valid elements that lie inside the tensor's extents; the element
  // types must match (Metal converts nothing here).
  template <class E, class X, class D, class... Tags> void load(const tensor<E, X, D, Tags...>& t) {
    static_assert(__is_same(mfemu::tt::value_t<E>, ElementType), "cooperative_tensor::load: the tensor's element type must be the cooperative tensor's");
    static_assert(X::rank() == Extents::rank(), "cooperative_tensor::load: the tensor's rank must be the cooperative tensor's");
    for (int i = 0; i < mfemu_capacity; i++) {
      long off;
      if (locate(t, i, off)) mfemu_slots[i] = t.mfemu_data[off];
    }
  }
  template <class E, class X, class D, class... Tags> void store(const tensor<E, X, D, Tags...>& t) const {
    static_assert(__is_same(mfemu::tt::value_t<E>, ElementType), "cooperative_tensor::store: the tensor's element type must be the cooperative tensor's");
    static_assert(!mfemu::tt::is_const_v<E>, "cooperative_tensor::store: the tensor's elements are const");
    static_assert(X::rank() == Extents::rank(), "cooperative_tensor::store: the tensor's rank must be the cooperative tensor's");
    for (int i = 0; i < mfemu_capacity; i++) {
      long off;
      if (locate(t, i, off)) t.mfemu_data[off] = mfemu_slots[i];
    }
  }

  // Emulator internals.
  explicit cooperative_tensor(uint thread_in_scope) : mfemu_thread(thread_in_scope) {
    __builtin_memset(mfemu_slots, 0xFF, sizeof mfemu_slots);
  }
  ElementType mfemu_slots[mfemu_capacity > 0 ? mfemu_capacity : 1];
  uint mfemu_thread;  // this thread's index in the op's execution scope

 private:
  template <class T> bool locate(const T& t, int i, long& off) const {
    if (!Layout::valid(mfemu_thread, i)) return false;
    int idx[Extents::rank()];
    Layout::index(mfemu_thread, i, idx);
    off = 0;
    for (rank_type r = 0; r < get_rank(); r++) {
      if (idx[r] >= t.get_extent(r)) return false;
      off += long(idx[r]) * long(t.get_stride(r));
    }
    return true;
  }
  void check(int i) const {
    if (i < 0 || i >= mfemu_capacity) {
      char msg[160];
      snprintf(msg, sizeof msg, "cooperative_tensor: element %d of a thread's %d accessed (get_capacity() bounds the index)",
               i, mfemu_capacity);
      mfemu_fail(mfemu::STATUS_FAULT, msg);
    }
  }
};

template <class T> struct is_cooperative_tensor { static constexpr bool value = false; };
template <class E, class X, class L> struct is_cooperative_tensor<cooperative_tensor<E, X, L>> { static constexpr bool value = true; };
template <class T> constexpr bool is_cooperative_tensor_v = is_cooperative_tensor<mfemu::tt::plain_t<T>>::value;
}  // namespace metal
