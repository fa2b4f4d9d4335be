// Test helpers for kernel plugins of the CPU backend.
#include "examples/cpu_with_plugin.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "backends/cpu/device.h"
#include "backends/cpu/ops/elementwise.h"
#include "backends/cpu/host_tensor.h"
#include "core/plugin/device.h"
#include "core/util/error.h"
#include "support/testdata.h"

namespace tessera::test {
namespace {

// A [rows, cols] tensor over the whole of `buffer`, with its host address.
tsr_tensor matrix(const DeviceBuffer& buffer, tsr_dtype dtype, int64_t rows, int64_t cols) {
  tsr_tensor t{};
  t.buffer = buffer.handle();
  t.dtype = dtype;
  t.ndim = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.shape[2] = t.shape[3] = 1;
  t.host_data = buffer.host_ptr();
  return t;
}

}  // namespace

CpuWithPlugin::CpuWithPlugin(const std::string& plugin_file) : host_(std::make_unique<PluginHost>()) {
  host_->load_file(plugin_dir() + "/libtessera_cpu.so");
  host_->load_file(plugin_file);
  if (!host_->failures().empty()) throw Error(host_->failures().front().message);
  backend_ = open_backend(*host_, "cpu", 1);
}

const RegisteredKernel& CpuWithPlugin::chosen(OpKind op) const {
  const RegisteredKernel* k = backend_.registry->find(op, DType::F32, backend_.device->plugin());
  if (!k) throw Error("no f32 kernel for " + std::string(op_name(op)));
  return *k;
}

std::vector<float> CpuWithPlugin::run(OpKind op, int64_t rows, int64_t cols,
                                      const std::vector<std::vector<float>>& inputs, bool in_place) const {
  const uint64_t bytes = static_cast<uint64_t>(rows * cols) * sizeof(float);
  std::vector<DeviceBuffer> buffers;
  std::vector<tsr_tensor> tensors;
  for (const auto& values : inputs) {
    buffers.push_back(DeviceBuffer::alloc(backend_.device, bytes, "input"));
    buffers.back().write(0, values.data(), bytes);
  }
  for (const auto& b : buffers) tensors.push_back(matrix(b, TSR_DTYPE_F32, rows, cols));
  DeviceBuffer out_buffer = DeviceBuffer::alloc(backend_.device, bytes, "out");
  const tsr_tensor out = in_place ? tensors[0] : matrix(out_buffer, TSR_DTYPE_F32, rows, cols);
  const tsr_op_call call{static_cast<tsr_op>(op), nullptr, static_cast<int32_t>(tensors.size()),
                         tensors.data(), &out};
  backend_.device->run(chosen(op), call);
  std::vector<float> result(static_cast<size_t>(rows * cols));
  (in_place ? buffers[0] : out_buffer).read(0, result.data(), bytes);
  return result;
}

std::string CpuWithPlugin::run_with_dtype(OpKind op, int index, tsr_dtype dtype) const {
  const int n_inputs = op == OpKind::SwiGlu ? 2 : 1;
  std::vector<DeviceBuffer> buffers;
  std::vector<tsr_tensor> tensors;
  for (int i = 0; i <= n_inputs; ++i) buffers.push_back(DeviceBuffer::alloc(backend_.device, 64, "t"));
  for (int i = 0; i <= n_inputs; ++i) {
    tensors.push_back(matrix(buffers[static_cast<size_t>(i)], i == index ? dtype : TSR_DTYPE_F32, 2, 4));
  }
  const tsr_op_call call{static_cast<tsr_op>(op), nullptr, n_inputs, tensors.data(), &tensors.back()};
  try {
    backend_.device->run(chosen(op), call);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<float> cpu_reference(OpKind op, int64_t rows, int64_t cols,
                                 const std::vector<std::vector<float>>& inputs) {
  cpu::CpuDevice device(1);
  std::vector<cpu::test::HostTensor> tensors;
  for (const auto& values : inputs) tensors.push_back(cpu::test::HostTensor::f32({rows, cols}, values));
  std::vector<const cpu::test::HostTensor*> in;
  for (const auto& t : tensors) in.push_back(&t);
  cpu::test::HostTensor out(TSR_DTYPE_F32, {rows, cols});
  const auto body = op == OpKind::SwiGlu ? cpu::swiglu_ref : cpu::silu_ref;
  const tsr_status status = cpu::test::run_kernel(device, body, static_cast<tsr_op>(op), nullptr, in, out);
  if (status != TSR_OK) throw Error(std::string("reference kernel failed: ") + device.last_error());
  return out.to_f32();
}

double max_relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(a[i]) - b[i]);
    worst = std::max(worst, diff / std::max(std::fabs(static_cast<double>(b[i])), 1e-20));
  }
  return worst;
}

std::vector<float> silu_test_values(size_t n, uint32_t seed) {
  std::vector<float> v = cpu::test::random_values(n, seed, -12.0f, 12.0f);
  const float tails[] = {0.0f, -0.0f, 1e-6f, -30.0f, 30.0f, -87.0f, 88.5f, -100.0f, 100.0f};
  for (size_t i = 0; i < std::size(tails) && i < n; ++i) v[i * 7 % n] = tails[i];
  return v;
}

}  // namespace tessera::test
