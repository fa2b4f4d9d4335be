// The fake device: buffers are plain host memory, kernels loop over elements.
#include "fake_backend.h"

#include <cstring>
#include <new>
#include <string>
#include <vector>

struct tsr_buffer_impl {
  std::vector<unsigned char> owned;  // empty when the buffer wraps host memory
  unsigned char* data = nullptr;
  uint64_t size = 0;
};

namespace fake {
namespace {

struct FakeDevice {
  std::string last_error;
};

int g_open_devices = 0;
int g_live_buffers = 0;

tsr_status fail(void* device, tsr_status status, std::string message) {
  static_cast<FakeDevice*>(device)->last_error = std::move(message);
  return status;
}

int32_t device_count() { return 1; }

tsr_status device_info(int32_t index, tsr_device_info* out) {
  if (index != 0) return TSR_E_INVALID_ARGUMENT;
  *out = tsr_device_info{};
  std::strcpy(out->name, "Fake Device");
  std::strcpy(out->description, "host memory for tests");
  out->memory_bytes = kMaxBufferBytes;
  out->host_visible = 1;
  return TSR_OK;
}

tsr_status device_open(int32_t index, const tsr_device_options*, void** device) {
  if (index != 0) return TSR_E_INVALID_ARGUMENT;
  *device = new (std::nothrow) FakeDevice;
  if (*device == nullptr) return TSR_E_OUT_OF_MEMORY;
  ++g_open_devices;
  return TSR_OK;
}

void device_close(void* device) {
  delete static_cast<FakeDevice*>(device);
  --g_open_devices;
}

const char* last_error(void* device) { return static_cast<FakeDevice*>(device)->last_error.c_str(); }

tsr_status buffer_alloc(void* device, uint64_t size, tsr_buffer* out) {
  if (size > kMaxBufferBytes) {
    return fail(device, TSR_E_OUT_OF_MEMORY,
                "fake device: " + std::to_string(size) + " bytes exceed the " +
                    std::to_string(kMaxBufferBytes) + "-byte limit");
  }
  auto* buffer = new tsr_buffer_impl;
  buffer->owned.resize(size);
  buffer->data = buffer->owned.data();
  buffer->size = size;
  *out = buffer;
  ++g_live_buffers;
  return TSR_OK;
}

tsr_status buffer_wrap_host(void*, void* host_ptr, uint64_t size, tsr_buffer* out) {
  *out = new tsr_buffer_impl{{}, static_cast<unsigned char*>(host_ptr), size};
  ++g_live_buffers;
  return TSR_OK;
}

void buffer_free(void*, tsr_buffer buffer) {
  delete buffer;
  --g_live_buffers;
}

void* buffer_host_ptr(void*, tsr_buffer buffer) { return buffer->data; }

tsr_status buffer_write(void*, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
  std::memcpy(dst->data + offset, src, size);
  return TSR_OK;
}

tsr_status buffer_read(void*, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
  std::memcpy(dst, src->data + offset, size);
  return TSR_OK;
}

int64_t element_count(const tsr_tensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

template <typename T>
T* data_of(const tsr_tensor& t) {
  return reinterpret_cast<T*>(t.buffer->data + t.offset);
}

// out = a + b, all of one dtype and one element count.
template <typename T>
tsr_status add(void* device, const tsr_op_call* call) {
  if (call->n_inputs != 2) return fail(device, TSR_E_INVALID_ARGUMENT, "add needs 2 inputs");
  const tsr_tensor& a = call->inputs[0];
  const tsr_tensor& b = call->inputs[1];
  const int64_t n = element_count(*call->output);
  if (element_count(a) != n || element_count(b) != n) {
    return fail(device, TSR_E_INVALID_ARGUMENT,
                "shape mismatch: a has " + std::to_string(element_count(a)) + " elements, b has " +
                    std::to_string(element_count(b)) + ", out has " + std::to_string(n));
  }
  for (int64_t i = 0; i < n; ++i) {
    data_of<T>(*call->output)[i] = data_of<const T>(a)[i] + data_of<const T>(b)[i];
  }
  return TSR_OK;
}

tsr_status scale_f32(void* device, const tsr_op_call* call) {
  if (call->params == nullptr) return fail(device, TSR_E_INVALID_ARGUMENT, "scale needs params");
  const float s = static_cast<const tsr_scale_params*>(call->params)->scale;
  const int64_t n = element_count(*call->output);
  for (int64_t i = 0; i < n; ++i) {
    data_of<float>(*call->output)[i] = data_of<const float>(call->inputs[0])[i] * s;
  }
  return TSR_OK;
}

}  // namespace

tsr_status failing_kernel(void* device, const tsr_op_call*) {
  return fail(device, TSR_E_INVALID_ARGUMENT, "this kernel always fails");
}

const tsr_kernel_desc kGoodKernels[kGoodKernelCount] = {
    {TSR_OP_ADD, TSR_DTYPE_F32, 0, "add_f32_reference", add<float>},
    {TSR_OP_ADD, TSR_DTYPE_F32, 10, "add_f32_fast", add<float>},
    {TSR_OP_ADD, TSR_DTYPE_I32, 0, "add_i32", add<int32_t>},
    {TSR_OP_SCALE, TSR_DTYPE_F32, 0, "scale_f32", scale_f32},
};

tsr_plugin base_table() {
  tsr_plugin t{};
  t.abi_version = TSR_ABI_VERSION;
  t.struct_size = sizeof(tsr_plugin);
  t.name = "fake";
  t.version = "1.2.3";
  t.device_count = device_count;
  t.unavailable_reason = nullptr;
  t.device_info = device_info;
  t.device_open = device_open;
  t.device_close = device_close;
  t.last_error = last_error;
  t.buffer_alloc = buffer_alloc;
  t.buffer_free = buffer_free;
  t.buffer_host_ptr = buffer_host_ptr;
  t.buffer_wrap_host = buffer_wrap_host;
  t.buffer_write = buffer_write;
  t.buffer_read = buffer_read;
  t.kernel_count = 0;
  t.kernels = nullptr;
  return t;
}

}  // namespace fake

extern "C" int fake_open_devices(void) { return fake::g_open_devices; }
extern "C" int fake_live_buffers(void) { return fake::g_live_buffers; }
