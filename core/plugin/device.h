// RAII wrappers over a plugin's C handles: an opened Device and its DeviceBuffers.
// Ownership runs buffer -> device -> library, so teardown is always in ABI order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <tessera/plugin_abi.h>

#include "core/plugin/kernel_registry.h"
#include "core/plugin/plugin_library.h"

namespace tessera {

// An opened device of a plugin. Shared: every DeviceBuffer holds its device, and the
// device holds its PluginLibrary, so a buffer is freed before its device is closed and
// a device is closed before its library is unloaded, whatever order the owners drop them.
// Every call through the plugin table checks its status and throws tessera::Error
// "<device name>: <what failed>: <the device's last_error text>".
class Device {
 public:
  // Opens device `index` of `plugin`; n_threads 0 = the plugin's default. Throws
  // tessera::Error when the plugin has no such device or device_open fails.
  static std::shared_ptr<Device> open(std::shared_ptr<const PluginLibrary> plugin, int32_t index,
                                      int32_t n_threads = 0);

  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();  // device_close

  const std::string& name() const { return name_; }  // "<plugin>:<index>", e.g. "cpu:0"
  const tsr_device_info& info() const { return info_; }
  int32_t index() const { return index_; }
  const PluginLibrary& plugin() const { return *plugin_; }
  const tsr_plugin& table() const { return plugin_->table(); }
  void* handle() const { return handle_; }

  // The plugin's message for the last failure on this device ("" if it gives none).
  std::string last_error() const;
  // Throws "<name>: <what>: <last_error>" (the status text when last_error is empty)
  // unless status is TSR_OK.
  void check(tsr_status status, std::string_view what) const;

  // Runs one kernel of this device's plugin; throws if `kernel` comes from another
  // plugin or returns an error status.
  void run(const tsr_kernel_desc& kernel, const tsr_op_call& call) const;
  // Runs a kernel the registry chose: one of this device's plugin (as above), or of a
  // kernel plugin extending it, which is called with device NULL and explains a
  // failure through its own last_error(NULL). Throws for a kernel of any other plugin:
  //   "cpu:0: kernel 'x.add' (add f32) of plugin 'x' does not run on 'cpu' devices"
  void run(const RegisteredKernel& kernel, const tsr_op_call& call) const;
  // Brackets a graph step (no-ops for synchronous plugins, whose slots are null).
  void begin_step() const;
  void end_step() const;

 private:
  struct Passkey {};

 public:
  Device(Passkey, std::shared_ptr<const PluginLibrary> plugin, int32_t index, void* handle,
         const tsr_device_info& info);

 private:
  std::shared_ptr<const PluginLibrary> plugin_;
  int32_t index_;
  void* handle_;
  tsr_device_info info_;
  std::string name_;
};

// A buffer on a device, freed by the destructor. Move-only.
class DeviceBuffer {
 public:
  // Allocates `bytes` on `device`; `what` names the contents for messages. Throws e.g.
  // "cpu:0: cannot allocate 2.1 GiB for 'blk.3.ffn_up.weight': <last_error>".
  static DeviceBuffer alloc(std::shared_ptr<Device> device, uint64_t bytes, std::string_view what);
  // Makes `host_ptr` (bytes long, kept alive and unchanged by the caller while the
  // buffer lives) visible to the device: zero copy through buffer_wrap_host when the
  // plugin has it, otherwise (slot null or TSR_E_UNSUPPORTED) alloc + write, a copy.
  static DeviceBuffer wrap_host(std::shared_ptr<Device> device, void* host_ptr, uint64_t bytes,
                                std::string_view what);

  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer();  // buffer_free

  // Copies to / from the buffer at byte `offset`; throws if the range passes its end.
  void write(uint64_t offset, const void* src, uint64_t bytes);
  void read(uint64_t offset, void* dst, uint64_t bytes) const;

  void* host_ptr() const { return host_ptr_; }  // nullptr if not host-visible
  tsr_buffer handle() const { return handle_; }
  uint64_t size() const { return size_; }
  const std::string& what() const { return what_; }
  bool copied_from_host() const { return copied_; }  // wrap_host fell back to a copy
  Device& device() const { return *device_; }

 private:
  DeviceBuffer(std::shared_ptr<Device> device, tsr_buffer handle, uint64_t bytes,
               std::string_view what);
  void check_range(uint64_t offset, uint64_t bytes, std::string_view verb) const;
  void release() noexcept;

  std::shared_ptr<Device> device_;
  tsr_buffer handle_ = nullptr;
  uint64_t size_ = 0;
  void* host_ptr_ = nullptr;
  std::string what_;
  bool copied_ = false;
};

}  // namespace tessera
