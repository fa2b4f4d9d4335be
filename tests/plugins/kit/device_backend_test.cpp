// The kit's device-backend table over a fake backend of host memory: the slots it
// fills, enumeration and its errors, buffers with checked ranges, steps, and where each
// failure's status and message go (the device's last error or the plugin's).
#include <tessera/kit/device_backend.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

struct tsr_buffer_impl {
  std::vector<char> bytes;
};

namespace tessera::kit {
namespace {

struct FakeDevice {
  void set_error(std::string message) noexcept { error = std::move(message); }
  const char* last_error() const { return error.c_str(); }
  std::string error;
  bool fail_step = false;
  int steps = 0;
};

// A status-carrying error of the fake API.
struct FakeApiError : std::runtime_error {
  FakeApiError(tsr_status s, const std::string& what) : std::runtime_error(what), code(s) {}
  tsr_status status() const { return code; }
  tsr_status code;
};

LastError& fake_plugin_error() {
  static LastError slot;
  return slot;
}

int g_devices = 1;
bool g_discovery_throws = false;
const std::string g_reason = "no fake device: unplugged";
const std::string g_no_reason;

struct FakeBackend {
  using Device = FakeDevice;
  using Slots = PluginSlots<FakeDevice, fake_plugin_error, FakeApiError>;
  static constexpr const char* kName = "fake";
  static constexpr const char* kNoRuntime = "the fake runtime could not start";

  static int32_t device_count() {
    if (g_discovery_throws) throw std::runtime_error("discovery failed");
    return g_devices;
  }
  static const std::string& unavailable_reason() {
    if (g_discovery_throws) throw std::runtime_error("discovery failed");
    return g_devices == 0 ? g_reason : g_no_reason;
  }
  static void describe(int32_t index, tsr_device_info* out) {
    std::snprintf(out->name, sizeof out->name, "fake %d", index);
    out->memory_bytes = 1024;
  }
  static FakeDevice* open(int32_t, const tsr_device_options*) { return new FakeDevice; }
  static tsr_buffer alloc(FakeDevice&, uint64_t size) {
    if (size > 1024) throw FakeApiError(TSR_E_OUT_OF_MEMORY, std::to_string(size) + " bytes do not fit");
    return new tsr_buffer_impl{std::vector<char>(size)};
  }
  static void free(FakeDevice&, tsr_buffer buffer) { delete buffer; }
  static uint64_t capacity(tsr_buffer buffer) { return buffer->bytes.size(); }
  static void write(FakeDevice&, tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
    std::memcpy(dst->bytes.data() + offset, src, size);
  }
  static void read(FakeDevice&, tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
    std::memcpy(dst, src->bytes.data() + offset, size);
  }
  static void begin_step(FakeDevice& device) { ++device.steps; }
  static void end_step(FakeDevice& device) {
    if (device.fail_step) throw FakeApiError(TSR_E_DEVICE, "a kernel of the step faulted");
  }
};

const tsr_kernel_desc kKernels[2] = {};

class DeviceBackendTable : public ::testing::Test {
 protected:
  void SetUp() override {
    g_devices = 1;
    g_discovery_throws = false;
  }
  void TearDown() override {
    if (device_) table_.device_close(device_);
  }
  void* open() {
    EXPECT_EQ(table_.device_open(0, nullptr, &device_), TSR_OK);
    return device_;
  }
  const tsr_plugin table_ = device_backend_table<FakeBackend>("9.9", kKernels, 2);
  void* device_ = nullptr;
};

TEST_F(DeviceBackendTable, FillsEveryDeviceBufferAndStepSlot) {
  EXPECT_STREQ(table_.name, "fake");
  EXPECT_STREQ(table_.version, "9.9");
  EXPECT_EQ(table_.kernel_count, 2);
  EXPECT_NE(table_.device_info, nullptr);
  EXPECT_NE(table_.buffer_alloc, nullptr);
  EXPECT_NE(table_.step_end, nullptr);
  EXPECT_EQ(table_.buffer_host_ptr, nullptr);
  EXPECT_EQ(table_.buffer_wrap_host, nullptr);
  EXPECT_EQ(table_.extends, nullptr);
}

TEST_F(DeviceBackendTable, EnumerationSaysWhyThereIsNoDevice) {
  EXPECT_EQ(table_.device_count(), 1);
  EXPECT_EQ(table_.unavailable_reason(), nullptr);
  tsr_device_info info{};
  EXPECT_EQ(table_.device_info(0, &info), TSR_OK);
  EXPECT_STREQ(info.name, "fake 0");
  g_devices = 0;
  EXPECT_STREQ(table_.unavailable_reason(), "no fake device: unplugged");
  EXPECT_EQ(table_.device_info(0, &info), TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(table_.last_error(nullptr), "device_info: no fake device 0 (there are 0)");
  g_discovery_throws = true;
  EXPECT_EQ(table_.device_count(), 0);
  EXPECT_STREQ(table_.unavailable_reason(), "the fake runtime could not start");
}

TEST_F(DeviceBackendTable, OpenRefusesAnIndexAndANullOut) {
  void* device = reinterpret_cast<void*>(1);
  EXPECT_EQ(table_.device_open(3, nullptr, &device), TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(device, nullptr);
  EXPECT_STREQ(table_.last_error(nullptr), "device_open: no fake device 3 (there is 1)");
  EXPECT_EQ(table_.device_open(0, nullptr, nullptr), TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(table_.last_error(nullptr), "device_open: device is null");
}

TEST_F(DeviceBackendTable, BuffersRoundTripAndRefuseOverruns) {
  void* device = open();
  tsr_buffer b = nullptr;
  ASSERT_EQ(table_.buffer_alloc(device, 64, &b), TSR_OK);
  const char text[] = "tessera";
  EXPECT_EQ(table_.buffer_write(device, b, 50, text, sizeof text), TSR_OK);
  char back[sizeof text] = {};
  EXPECT_EQ(table_.buffer_read(device, b, 50, back, sizeof back), TSR_OK);
  EXPECT_STREQ(back, "tessera");
  EXPECT_EQ(table_.buffer_write(device, b, 60, text, sizeof text), TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(table_.last_error(device), "buffer_write: 8 bytes at offset 60 overrun a buffer of 64 bytes");
  EXPECT_EQ(table_.buffer_read(device, nullptr, 0, back, 1), TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(table_.last_error(device), "buffer_read: buffer is null");
  table_.buffer_free(device, b);
}

TEST_F(DeviceBackendTable, AllocationFailureKeepsItsStatusAndMessage) {
  void* device = open();
  tsr_buffer b = reinterpret_cast<tsr_buffer>(1);
  EXPECT_EQ(table_.buffer_alloc(device, 4096, &b), TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(b, nullptr);
  EXPECT_STREQ(table_.last_error(device), "buffer_alloc: 4096 bytes do not fit");
  EXPECT_EQ(table_.buffer_alloc(nullptr, 16, &b), TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(table_.last_error(nullptr), "buffer_alloc: device is null");
}

TEST_F(DeviceBackendTable, StepsReachTheDeviceAndAFaultComesBackFromStepEnd) {
  void* device = open();
  EXPECT_EQ(table_.step_begin(device), TSR_OK);
  EXPECT_EQ(static_cast<FakeDevice*>(device)->steps, 1);
  EXPECT_EQ(table_.step_end(device), TSR_OK);
  static_cast<FakeDevice*>(device)->fail_step = true;
  EXPECT_EQ(table_.step_end(device), TSR_E_DEVICE);
  EXPECT_STREQ(table_.last_error(device), "step_end: a kernel of the step faulted");
  EXPECT_EQ(table_.step_end(nullptr), TSR_E_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tessera::kit
