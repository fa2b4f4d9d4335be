// "partial": a test backend with devices and buffers of its own but only two kernels,
// ADD and SWIGLU f32, for the per-op fallback tests: every other node of a model runs
// on the fallback. Its kernels reach the data through its own buffer handles (not
// host_data), so a tensor placed on the wrong device would be read as garbage.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>

#include <tessera/plugin_abi.h>

struct tsr_buffer_impl {
  unsigned char* data;
  uint64_t size;
  bool owned;
};

namespace {

struct PartialDevice {
  std::string last_error;
};

std::string g_last_error;  // failures without a device

const char* last_error(void* device) {
  return device ? static_cast<PartialDevice*>(device)->last_error.c_str() : g_last_error.c_str();
}

tsr_status fail(void* device, const std::string& message) {
  (device ? static_cast<PartialDevice*>(device)->last_error : g_last_error) = message;
  return TSR_E_INVALID_ARGUMENT;
}

int32_t device_count() { return 1; }
const char* unavailable_reason() { return nullptr; }

tsr_status device_info(int32_t index, tsr_device_info* out) {
  if (index != 0) return fail(nullptr, "partial: no device " + std::to_string(index));
  *out = tsr_device_info{};
  std::strncpy(out->name, "partial", sizeof out->name - 1);
  std::strncpy(out->description, "test backend: add and swiglu f32 only", sizeof out->description - 1);
  return TSR_OK;
}

tsr_status device_open(int32_t index, const tsr_device_options*, void** device) {
  if (index != 0) return fail(nullptr, "partial: no device " + std::to_string(index));
  *device = new (std::nothrow) PartialDevice();
  return *device ? TSR_OK : fail(nullptr, "partial: out of memory");
}

void device_close(void* device) { delete static_cast<PartialDevice*>(device); }

tsr_status buffer_alloc(void* device, uint64_t size, tsr_buffer* out) {
  auto* data = new (std::nothrow) unsigned char[size ? size : 1];
  if (!data) return fail(device, "partial: cannot allocate " + std::to_string(size) + " bytes");
  *out = new tsr_buffer_impl{data, size, true};
  return TSR_OK;
}

void buffer_free(void*, tsr_buffer b) {
  if (b && b->owned) delete[] b->data;
  delete b;
}

void* buffer_host_ptr(void*, tsr_buffer b) { return b->data; }

tsr_status buffer_write(void* device, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
  if (offset > dst->size || size > dst->size - offset) return fail(device, "partial: write past the buffer");
  std::memcpy(dst->data + offset, src, size);
  return TSR_OK;
}

tsr_status buffer_read(void* device, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
  if (offset > src->size || size > src->size - offset) return fail(device, "partial: read past the buffer");
  std::memcpy(dst, src->data + offset, size);
  return TSR_OK;
}

int64_t elements(const tsr_tensor& t) {
  int64_t n = 1;
  for (int k = 0; k < t.ndim; ++k) n *= t.shape[k];
  return n;
}

float* data_of(const tsr_tensor& t) { return reinterpret_cast<float*>(t.buffer->data + t.offset); }

// in: a, b (same shape, or b [C] broadcast over rows). out = a + b
tsr_status add_f32(void* device, const tsr_op_call* call) {
  if (call->n_inputs != 2) return fail(device, "partial add: expects 2 inputs");
  const tsr_tensor& a = call->inputs[0];
  const tsr_tensor& b = call->inputs[1];
  const int64_t n = elements(a), nb = elements(b);
  if (elements(*call->output) != n || nb == 0 || n % nb != 0) return fail(device, "partial add: bad shapes");
  const float* pa = data_of(a);
  const float* pb = data_of(b);
  float* out = data_of(*call->output);
  for (int64_t i = 0; i < n; ++i) out[i] = pa[i] + pb[i % nb];
  return TSR_OK;
}

// in: gate [N, C], up [N, C]. out = silu(gate) * up
tsr_status swiglu_f32(void* device, const tsr_op_call* call) {
  if (call->n_inputs != 2) return fail(device, "partial swiglu: expects 2 inputs");
  const int64_t n = elements(call->inputs[0]);
  if (elements(call->inputs[1]) != n || elements(*call->output) != n) return fail(device, "partial swiglu: bad shapes");
  const float* g = data_of(call->inputs[0]);
  const float* u = data_of(call->inputs[1]);
  float* out = data_of(*call->output);
  for (int64_t i = 0; i < n; ++i) out[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
  return TSR_OK;
}

const tsr_kernel_desc kKernels[] = {
    {TSR_OP_ADD, TSR_DTYPE_F32, 0, "partial.add.f32", add_f32},
    {TSR_OP_SWIGLU, TSR_DTYPE_F32, 0, "partial.swiglu.f32", swiglu_f32},
};

tsr_plugin make_table() {
  tsr_plugin t{};
  t.abi_version = TSR_ABI_VERSION;
  t.struct_size = sizeof(tsr_plugin);
  t.name = "partial";
  t.version = "0.1.0";
  t.device_count = device_count;
  t.unavailable_reason = unavailable_reason;
  t.device_info = device_info;
  t.device_open = device_open;
  t.device_close = device_close;
  t.last_error = last_error;
  t.buffer_alloc = buffer_alloc;
  t.buffer_free = buffer_free;
  t.buffer_host_ptr = buffer_host_ptr;
  t.buffer_write = buffer_write;
  t.buffer_read = buffer_read;
  t.kernel_count = 2;
  t.kernels = kKernels;
  return t;
}

const tsr_plugin kTable = make_table();

}  // namespace

extern "C" TSR_PLUGIN_EXPORT const tsr_plugin* tessera_plugin_entry(void) { return &kTable; }
