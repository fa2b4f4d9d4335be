// The GPU test session (see gpu_session.h).
#include "backends/gpu_session.h"

#include <gtest/gtest.h>

#include <cstring>

#include <tessera/kit/dtype_traits.h>

#include "backends/cpu/buffer.h"
#include "core/ops/op.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"
#include "support/testdata.h"

namespace tessera::gpu_test {
namespace {

constexpr std::byte kGuard{0xA5};

uint64_t tensor_bytes(const tsr_tensor& t) {
  int64_t rows = 1;
  for (int i = 0; i + 1 < t.ndim; ++i) rows *= t.shape[i];
  const int64_t cols = t.shape[t.ndim - 1];
  return cols == 0 ? 0 : static_cast<uint64_t>(rows * dtype_row_bytes(static_cast<DType>(t.dtype), cols));
}

std::unique_ptr<Session> open_session() {
  auto s = std::make_unique<Session>();
  s->backend = program_backend();
  s->host.scan_directory(tessera::test::plugin_dir());
  s->plugin = s->host.find(s->backend);
  if (!s->plugin) {
    s->skip_reason = "the " + s->backend + " plugin did not load";
    for (const auto& f : s->host.failures()) s->skip_reason += "; " + f.message;
    return s;
  }
  if (s->plugin->device_count() == 0) {
    s->skip_reason = s->plugin->unavailable_reason();
    return s;
  }
  s->device = Device::open(s->plugin, 0);
  s->registry = std::make_unique<KernelRegistry>(std::vector<std::shared_ptr<const PluginLibrary>>{s->plugin});
  return s;
}

}  // namespace

Session& session() {
  static std::unique_ptr<Session> s = open_session();
  return *s;
}

GpuTensor::GpuTensor(const HostTensor& host, uint64_t offset) : desc_(host.desc()) {
  bytes_ = tensor_bytes(desc_);
  const uint64_t total = offset + bytes_ + kGuardBytes;
  buffer_ = std::make_shared<DeviceBuffer>(DeviceBuffer::alloc(session().device, total, "test tensor"));
  std::vector<std::byte> image(total, kGuard);
  if (bytes_ > 0) std::memcpy(image.data() + offset, host.desc().buffer->data + host.desc().offset, bytes_);
  buffer_->write(0, image.data(), total);
  desc_.buffer = buffer_->handle();
  desc_.offset = offset;
}

HostTensor GpuTensor::read() const {
  std::vector<int64_t> shape(desc_.shape, desc_.shape + desc_.ndim);
  HostTensor out(desc_.dtype, shape);
  buffer_->read(desc_.offset, out.bytes(), bytes_);
  return out;
}

bool GpuTensor::guards_intact() const {
  std::vector<std::byte> image(buffer_->size());
  buffer_->read(0, image.data(), image.size());
  for (uint64_t i = 0; i < image.size(); ++i) {
    const bool inside = i >= desc_.offset && i < desc_.offset + bytes_;
    if (!inside && image[i] != kGuard) return false;
  }
  return true;
}

uint64_t odd_offset(tsr_dtype dtype, uint64_t slot) {
  const bool four_bytes = kit::dtype_traits(dtype).alignment == 4;  // f32, i32
  return 4 * slot + (four_bytes ? 4 : 2);
}

void run_backend(tsr_op op, tsr_dtype key, const void* params, const std::vector<const GpuTensor*>& inputs,
                 const GpuTensor& out) {
  const RegisteredKernel* k =
      session().registry->find(static_cast<OpKind>(op), static_cast<DType>(key), *session().plugin);
  if (!k) {
    throw Error("no " + session().backend + " kernel for op " + std::to_string(op) + " dtype " + std::to_string(key));
  }
  std::vector<tsr_tensor> descs;
  for (const GpuTensor* t : inputs) descs.push_back(t->desc());
  const tsr_op_call call{op, params, static_cast<int32_t>(descs.size()), descs.data(), &out.desc()};
  session().device->run(*k->desc, call);
}

void run_reference(cpu::KernelBody body, tsr_op op, const void* params, const std::vector<const HostTensor*>& inputs,
                   HostTensor& out) {
  static cpu::CpuDevice cpu_device(1);
  const tsr_status status = cpu::test::run_kernel(cpu_device, body, op, params, inputs, out);
  ASSERT_EQ(status, TSR_OK) << cpu_device.last_error();
}

std::vector<float> run_on_backend(tsr_op op, tsr_dtype key, const void* params,
                                  const std::vector<const HostTensor*>& inputs, const HostTensor& out,
                                  const std::vector<uint64_t>& offsets) {
  std::vector<std::unique_ptr<GpuTensor>> gpu_inputs;
  std::vector<const GpuTensor*> pointers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    gpu_inputs.push_back(std::make_unique<GpuTensor>(*inputs[i], offsets.at(i)));
    pointers.push_back(gpu_inputs.back().get());
  }
  const GpuTensor gpu_out(out, offsets.at(inputs.size()));
  run_backend(op, key, params, pointers, gpu_out);
  EXPECT_TRUE(gpu_out.guards_intact()) << "the kernel wrote outside its output";
  return gpu_out.read().to_f32();
}

}  // namespace tessera::gpu_test
