// The kit's exception boundary: what status and message each kind of exception
// becomes, for kernel entries and for other ABI slots, and the last-error slot.
#include <tessera/kit/guard.h>

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include <tessera/kit/last_error.h>

namespace tessera::kit {
namespace {

// A plugin's own error type that carries a status (like a driver error).
struct DriverError : std::runtime_error {
  DriverError(int status, const std::string& what) : std::runtime_error(what), code(status) {}
  int status() const { return code; }
  int code;
};

struct NotAnException {};

class KernelGuard : public ::testing::Test {
 protected:
  // Runs `body` as a kernel for SILU called with `op`; returns the status.
  template <class... StatusErrors, class Body>
  tsr_status run(Body body, tsr_op op = TSR_OP_SILU) {
    const tsr_op_call call{op, nullptr, 0, nullptr, nullptr};
    return run_guarded<StatusErrors...>(
        &call, TSR_OP_SILU, "test", [this](std::string m) noexcept { message = std::move(m); }, body);
  }
  std::string message = "<not recorded>";
};

TEST_F(KernelGuard, ReturnsOkAndRecordsNothingOnSuccess) {
  int runs = 0;
  EXPECT_EQ(run([&](const tsr_op_call&) { ++runs; }), TSR_OK);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(message, "<not recorded>");
}

TEST_F(KernelGuard, KernelErrorKeepsItsStatusAndMessage) {
  EXPECT_EQ(run([](const tsr_op_call&) { throw KernelError(TSR_E_UNSUPPORTED, "silu: no f16"); }),
            TSR_E_UNSUPPORTED);
  EXPECT_EQ(message, "silu: no f16");
}

TEST_F(KernelGuard, FailFromTheChecksIsAnInvalidArgument) {
  EXPECT_EQ(run([](const tsr_op_call&) { fail("silu", "x is missing"); }), TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(message, "silu: x is missing");
}

TEST_F(KernelGuard, BadAllocIsOutOfMemory) {
  EXPECT_EQ(run([](const tsr_op_call&) { throw std::bad_alloc(); }), TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(message, "out of memory in a test kernel");
}

TEST_F(KernelGuard, OtherExceptionIsAnInternalError) {
  EXPECT_EQ(run([](const tsr_op_call&) { throw std::logic_error("boom"); }), TSR_E_INTERNAL);
  EXPECT_EQ(message, "internal error in a test kernel: boom");
}

TEST_F(KernelGuard, NonStandardExceptionIsAnInternalError) {
  EXPECT_EQ(run([](const tsr_op_call&) { throw NotAnException{}; }), TSR_E_INTERNAL);
  EXPECT_EQ(message, "internal error in a test kernel: unknown exception");
}

TEST_F(KernelGuard, ListedErrorTypeKeepsItsStatus) {
  EXPECT_EQ(run<DriverError>([](const tsr_op_call&) { throw DriverError(TSR_E_DEVICE, "device lost"); }),
            TSR_E_DEVICE);
  EXPECT_EQ(message, "device lost");
}

TEST_F(KernelGuard, UnlistedErrorTypeIsInternal) {
  EXPECT_EQ(run([](const tsr_op_call&) { throw DriverError(TSR_E_DEVICE, "device lost"); }), TSR_E_INTERNAL);
  EXPECT_EQ(message, "internal error in a test kernel: device lost");
}

TEST_F(KernelGuard, RefusesACallForAnotherOp) {
  int runs = 0;
  EXPECT_EQ(run([&](const tsr_op_call&) { ++runs; }, TSR_OP_GELU), TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(message, "kernel for op 6 called with op 7");
  EXPECT_EQ(runs, 0);
}

TEST_F(KernelGuard, RefusesANullCall) {
  const tsr_status status = run_guarded(
      nullptr, TSR_OP_SILU, "test", [this](std::string m) noexcept { message = std::move(m); },
      [](const tsr_op_call&) {});
  EXPECT_EQ(status, TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(message, "kernel called without a call");
}

TEST(SlotGuard, PassesTheBodysStatusThrough) {
  std::string message = "<not recorded>";
  const auto record = [&](std::string m) noexcept { message = std::move(m); };
  EXPECT_EQ(guard_slot("device_open", record, [] { return TSR_E_UNSUPPORTED; }), TSR_E_UNSUPPORTED);
  EXPECT_EQ(message, "<not recorded>");
}

TEST(SlotGuard, PrefixesTheSlotName) {
  std::string message;
  const auto record = [&](std::string m) noexcept { message = std::move(m); };
  EXPECT_EQ(guard_slot("buffer_alloc", record, []() -> tsr_status { throw std::bad_alloc(); }),
            TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(message, "buffer_alloc: out of memory");
}

TEST(SlotGuard, ListedErrorTypeKeepsItsStatus) {
  std::string message;
  const auto record = [&](std::string m) noexcept { message = std::move(m); };
  const tsr_status status = guard_slot<DriverError>(
      "buffer_alloc", record, []() -> tsr_status { throw DriverError(TSR_E_OUT_OF_MEMORY, "heap full"); });
  EXPECT_EQ(status, TSR_E_OUT_OF_MEMORY);
  EXPECT_EQ(message, "buffer_alloc: heap full");
}

// A backend's device as run_device_kernel sees it.
struct TestDevice {
  std::string error;
  int runs = 0;
  void set_error(std::string message) noexcept { error = std::move(message); }
};

void counting_body(TestDevice& device, const tsr_op_call&) { ++device.runs; }
void failing_body(TestDevice&, const tsr_op_call&) { fail("silu", "x is missing"); }

TEST(DeviceKernelGuard, RunsTheBodyOnTheDevice) {
  TestDevice device;
  LastError plugin_error;
  const tsr_op_call call{TSR_OP_SILU, nullptr, 0, nullptr, nullptr};
  EXPECT_EQ(run_device_kernel<TestDevice>(&device, &call, TSR_OP_SILU, "test", plugin_error, counting_body),
            TSR_OK);
  EXPECT_EQ(device.runs, 1);
}

TEST(DeviceKernelGuard, SendsTheFailureToTheDevice) {
  TestDevice device;
  LastError plugin_error;
  const tsr_op_call call{TSR_OP_SILU, nullptr, 0, nullptr, nullptr};
  EXPECT_EQ(run_device_kernel<TestDevice>(&device, &call, TSR_OP_SILU, "test", plugin_error, failing_body),
            TSR_E_INVALID_ARGUMENT);
  EXPECT_EQ(device.error, "silu: x is missing");
  EXPECT_STREQ(plugin_error.get(), "");
}

TEST(DeviceKernelGuard, RefusesANullDeviceThroughThePluginError) {
  LastError plugin_error;
  const tsr_op_call call{TSR_OP_SILU, nullptr, 0, nullptr, nullptr};
  EXPECT_EQ(run_device_kernel<TestDevice>(nullptr, &call, TSR_OP_SILU, "test", plugin_error, counting_body),
            TSR_E_INVALID_ARGUMENT);
  EXPECT_STREQ(plugin_error.get(), "kernel called without a device");
}

TEST(LastErrorSlot, StartsEmptyAndKeepsTheLastMessage) {
  LastError error;
  EXPECT_STREQ(error.get(), "");
  error.set("first");
  error.set("second");
  EXPECT_STREQ(error.get(), "second");
}

}  // namespace
}  // namespace tessera::kit
