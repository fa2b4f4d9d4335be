#include "core/plugin/device.h"

#include <utility>

#include "core/ops/op.h"
#include "core/plugin/abi_text.h"
#include "core/tensor/dtype.h"
#include "core/util/error.h"

namespace tessera {
namespace {

std::string kernel_label(const tsr_kernel_desc& k) {
  const std::string op = k.op == TSR_OP_CUSTOM ? std::string(k.op_name) : std::string(op_name(static_cast<OpKind>(k.op)));
  const std::string dtype(dtype_name(static_cast<DType>(k.dtype)));
  const std::string name = k.name ? k.name : op + "_" + dtype;
  return "kernel '" + name + "' (" + op + " " + dtype + ")";
}

}  // namespace

// ---- Device ------------------------------------------------------------------

std::shared_ptr<Device> Device::open(std::shared_ptr<const PluginLibrary> plugin, int32_t index,
                                     int32_t n_threads) {
  if (!plugin) throw Error("Device::open: no plugin");
  const int32_t count = plugin->device_count();
  if (count == 0) {
    const std::string reason = plugin->unavailable_reason();
    throw Error(plugin->name() + ": no devices" + (reason.empty() ? "" : " (" + reason + ")"));
  }
  const tsr_device_info info = plugin->device_info(index);  // checks the index
  const std::string name = plugin->name() + ":" + std::to_string(index);

  const tsr_device_options options{.struct_size = sizeof(tsr_device_options),
                                   .n_threads = n_threads};
  void* handle = nullptr;
  const tsr_status status = plugin->table().device_open(index, &options, &handle);
  if (status != TSR_OK) throw Error(name + ": cannot open the device: " + status_text(status));
  if (handle == nullptr) throw Error(name + ": cannot open the device: the plugin returned no handle");
  return std::make_shared<Device>(Passkey{}, std::move(plugin), index, handle, info);
}

Device::Device(Passkey, std::shared_ptr<const PluginLibrary> plugin, int32_t index, void* handle,
               const tsr_device_info& info)
    : plugin_(std::move(plugin)),
      index_(index),
      handle_(handle),
      info_(info),
      name_(plugin_->name() + ":" + std::to_string(index)) {}

Device::~Device() { plugin_->table().device_close(handle_); }

std::string Device::last_error() const {
  const char* text = table().last_error(handle_);
  return text ? text : "";
}

void Device::check(tsr_status status, std::string_view what) const {
  if (status == TSR_OK) return;
  std::string cause = last_error();
  if (cause.empty()) cause = status_text(status);
  throw Error(name_ + ": " + std::string(what) + ": " + cause);
}

void Device::run(const tsr_kernel_desc& kernel, const tsr_op_call& call) const {
  if (!plugin_->owns(kernel)) {
    throw Error(name_ + ": " + kernel_label(kernel) + " is not a kernel of plugin '" +
                plugin_->name() + "'");
  }
  const tsr_status status = kernel.run(handle_, &call);
  if (status != TSR_OK) check(status, kernel_label(kernel));
}

void Device::run(const RegisteredKernel& kernel, const tsr_op_call& call) const {
  const PluginLibrary* owner = kernel.plugin;
  if (owner == plugin_.get()) {
    run(*kernel.desc, call);
    return;
  }
  if (owner == nullptr || owner->extends() != plugin_->name() || !owner->owns(*kernel.desc)) {
    throw Error(name_ + ": " + kernel_label(*kernel.desc) + " of plugin '" +
                (owner ? owner->name() : std::string("?")) + "' does not run on '" +
                plugin_->name() + "' devices");
  }
  if (!plugin_->takes_kernel_plugins()) {
    throw Error(name_ + ": " + kernel_label(*kernel.desc) + " of plugin '" + owner->name() +
                "' cannot run here: '" + plugin_->name() +
                "' devices need host-visible buffers and synchronous kernels for kernel plugins");
  }
  const tsr_status status = kernel.desc->run(nullptr, &call);
  if (status == TSR_OK) return;
  const char* text = owner->table().last_error(nullptr);
  const std::string cause = text && text[0] != '\0' ? text : status_text(status);
  throw Error(name_ + ": " + kernel_label(*kernel.desc) + " of plugin '" + owner->name() +
              "': " + cause);
}

void Device::begin_step() const {
  if (table().step_begin) check(table().step_begin(handle_), "cannot begin the step");
}

void Device::end_step() const {
  if (table().step_end) check(table().step_end(handle_), "step failed");
}

// ---- DeviceBuffer --------------------------------------------------------------

DeviceBuffer DeviceBuffer::alloc(std::shared_ptr<Device> device, uint64_t bytes,
                                 std::string_view what) {
  if (!device) throw Error("DeviceBuffer::alloc: no device for '" + std::string(what) + "'");
  tsr_buffer handle = nullptr;
  device->check(device->table().buffer_alloc(device->handle(), bytes, &handle),
                "cannot allocate " + format_bytes(bytes) + " for '" + std::string(what) + "'");
  if (handle == nullptr) {
    throw Error(device->name() + ": cannot allocate " + format_bytes(bytes) + " for '" +
                std::string(what) + "': the plugin returned no buffer");
  }
  return DeviceBuffer(std::move(device), handle, bytes, what);
}

DeviceBuffer DeviceBuffer::wrap_host(std::shared_ptr<Device> device, void* host_ptr,
                                     uint64_t bytes, std::string_view what) {
  if (!device) throw Error("DeviceBuffer::wrap_host: no device for '" + std::string(what) + "'");
  const auto wrap = device->table().buffer_wrap_host;
  if (wrap) {
    tsr_buffer handle = nullptr;
    const tsr_status status = wrap(device->handle(), host_ptr, bytes, &handle);
    if (status == TSR_OK && handle != nullptr) {
      return DeviceBuffer(std::move(device), handle, bytes, what);
    }
    if (status != TSR_E_UNSUPPORTED) {
      device->check(status == TSR_OK ? TSR_E_INTERNAL : status,
                    "cannot wrap " + format_bytes(bytes) + " of host memory for '" +
                        std::string(what) + "'");
    }
  }
  DeviceBuffer buffer = alloc(std::move(device), bytes, what);
  buffer.write(0, host_ptr, bytes);
  buffer.copied_ = true;
  return buffer;
}

DeviceBuffer::DeviceBuffer(std::shared_ptr<Device> device, tsr_buffer handle, uint64_t bytes,
                           std::string_view what)
    : device_(std::move(device)), handle_(handle), size_(bytes), what_(what) {
  const auto host_ptr_slot = device_->table().buffer_host_ptr;
  host_ptr_ = host_ptr_slot ? host_ptr_slot(device_->handle(), handle_) : nullptr;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : device_(std::move(other.device_)),
      handle_(std::exchange(other.handle_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      host_ptr_(std::exchange(other.host_ptr_, nullptr)),
      what_(std::move(other.what_)),
      copied_(std::exchange(other.copied_, false)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::move(other.device_);
    handle_ = std::exchange(other.handle_, nullptr);
    size_ = std::exchange(other.size_, 0);
    host_ptr_ = std::exchange(other.host_ptr_, nullptr);
    what_ = std::move(other.what_);
    copied_ = std::exchange(other.copied_, false);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() noexcept {
  if (device_ && handle_) device_->table().buffer_free(device_->handle(), handle_);
  handle_ = nullptr;
  device_.reset();  // may close the device, and then unload its library
}

void DeviceBuffer::check_range(uint64_t offset, uint64_t bytes, std::string_view verb) const {
  if (!device_) throw Error("DeviceBuffer: " + std::string(verb) + " on a moved-from buffer");
  if (offset > size_ || bytes > size_ - offset) {
    throw Error(device_->name() + ": cannot " + std::string(verb) + " " + std::to_string(bytes) +
                " bytes at offset " + std::to_string(offset) + " of '" + what_ + "' (" +
                std::to_string(size_) + " bytes)");
  }
}

void DeviceBuffer::write(uint64_t offset, const void* src, uint64_t bytes) {
  check_range(offset, bytes, "write");
  device_->check(device_->table().buffer_write(device_->handle(), handle_, offset, src, bytes),
                 "cannot write " + format_bytes(bytes) + " to '" + what_ + "'");
}

void DeviceBuffer::read(uint64_t offset, void* dst, uint64_t bytes) const {
  check_range(offset, bytes, "read");
  device_->check(device_->table().buffer_read(device_->handle(), handle_, offset, dst, bytes),
                 "cannot read " + format_bytes(bytes) + " from '" + what_ + "'");
}

}  // namespace tessera
