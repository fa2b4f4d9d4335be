// The kit's plugin-table glue: where each slot's failure goes (the device or the
// plugin), the status and text a thrown check becomes, and the checks' messages.
#include <tessera/kit/plugin_slots.h>

#include <gtest/gtest.h>

#include <string>

namespace tessera::kit {
namespace {

struct FakeDevice {
  void set_error(std::string message) noexcept { error = std::move(message); }
  const char* last_error() const { return error.c_str(); }
  std::string error;
};

LastError& fake_plugin_error() {
  static LastError slot;
  return slot;
}

using Slots = PluginSlots<FakeDevice, fake_plugin_error>;

// The status and last error of a slot whose body runs `check`.
template <class Check>
std::pair<tsr_status, std::string> run_slot(void* device, Check check) {
  const tsr_status st = Slots::guarded(device, "buffer_write", [&]() -> tsr_status {
    check();
    return TSR_OK;
  });
  return {st, Slots::last_error(device)};
}

TEST(PluginSlots, AFailureWithADeviceGoesToTheDevice) {
  FakeDevice device;
  fake_plugin_error().set("untouched");
  const auto [st, message] = run_slot(&device, [] { check_not_null(nullptr, "buffer"); });
  EXPECT_EQ(st, TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(message, "buffer_write: buffer is null");
  EXPECT_STREQ(fake_plugin_error().get(), "untouched");
}

TEST(PluginSlots, AFailureWithoutADeviceGoesToThePlugin) {
  const auto [st, message] = run_slot(nullptr, [] { check_device_index("cuda", 0, 0); });
  EXPECT_EQ(st, TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(message, "buffer_write: no cuda device 0 (there are 0)");
  EXPECT_STREQ(fake_plugin_error().get(), "buffer_write: no cuda device 0 (there are 0)");
}

TEST(PluginSlots, FailureRecordsAndReturnsTheStatus) {
  FakeDevice device;
  EXPECT_EQ(Slots::failure(&device, TSR_E_OUT_OF_MEMORY, "buffer_alloc: too big"), TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(device.error, "buffer_alloc: too big");
}

TEST(PluginSlots, ASuccessfulSlotRecordsNothing) {
  FakeDevice device;
  device.error = "earlier";
  EXPECT_EQ(run_slot(&device, [] { check_copy_range(nullptr, 0, 0, 0); }).first, TSR_OK);
  EXPECT_EQ(device.error, "earlier");
}

TEST(DeviceIndexCheck, NamesTheBackendAndTheCount) {
  EXPECT_NO_THROW(check_device_index("cpu", 0, 1));
  EXPECT_THROW(check_device_index("cpu", -1, 1), KernelError);
  try {
    check_device_index("cpu", 1, 1);
    FAIL() << "no throw";
  } catch (const KernelError& e) {
    EXPECT_STREQ(e.what(), "no cpu device 1 (there is 1)");
  }
  try {
    check_device_index("vulkan", 3, 2);
    FAIL() << "no throw";
  } catch (const KernelError& e) {
    EXPECT_STREQ(e.what(), "no vulkan device 3 (there are 2)");
  }
}

TEST(CopyRangeCheck, AcceptsRangesInsideTheBuffer) {
  const char host[4] = {};
  EXPECT_NO_THROW(check_copy_range(host, 0, 64, 64));
  EXPECT_NO_THROW(check_copy_range(host, 64, 0, 64));
  EXPECT_NO_THROW(check_copy_range(nullptr, 10, 0, 64));
}

TEST(CopyRangeCheck, RefusesOverrunsWithoutOverflowing) {
  const char host[4] = {};
  for (const auto& [offset, size] : {std::pair<uint64_t, uint64_t>{60, 16}, {65, 0}, {8, UINT64_MAX}}) {
    try {
      check_copy_range(host, offset, size, 64);
      FAIL() << offset << "+" << size << " accepted";
    } catch (const KernelError& e) {
      EXPECT_EQ(e.status(), TSR_E_INVALID_ARGUMENT);
      EXPECT_EQ(std::string(e.what()), std::to_string(size) + " bytes at offset " + std::to_string(offset) +
                                           " overrun a buffer of 64 bytes");
    }
  }
}

TEST(CopyRangeCheck, RefusesANullHostPointerForBytes) {
  try {
    check_copy_range(nullptr, 0, 4, 64);
    FAIL() << "accepted";
  } catch (const KernelError& e) {
    EXPECT_STREQ(e.what(), "host pointer is null");
  }
}

TEST(BackendTable, SetsTheFixedFieldsAndLeavesSlotsNull) {
  static const tsr_kernel_desc kernels[1] = {};
  const tsr_plugin p = backend_table("cuda", "1.2.3", kernels, 1);
  EXPECT_EQ(p.abi_version, static_cast<uint32_t>(TSR_ABI_VERSION));
  EXPECT_EQ(p.struct_size, sizeof(tsr_plugin));
  EXPECT_STREQ(p.name, "cuda");
  EXPECT_STREQ(p.version, "1.2.3");
  EXPECT_EQ(p.kernels, kernels);
  EXPECT_EQ(p.kernel_count, 1);
  EXPECT_EQ(p.device_count, nullptr);
  EXPECT_EQ(p.buffer_alloc, nullptr);
  EXPECT_EQ(p.extends, nullptr);
}

}  // namespace
}  // namespace tessera::kit
