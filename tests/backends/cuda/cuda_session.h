// The CUDA tests' view of the GPU test session (backends/gpu_session.h): cuda:0, and
// the base classes that skip, saying why, where there is no CUDA device.
#pragma once

#include <gtest/gtest.h>

#include "backends/gpu_session.h"

namespace tessera::cuda::test {

using cpu::test::HostTensor;
using gpu_test::error_of;
using gpu_test::GpuTensor;
using gpu_test::odd_offset;
using gpu_test::run_on_backend;
using gpu_test::run_reference;
using gpu_test::session;

template <class Base>
class WithCuda : public Base {
 protected:
  void SetUp() override {
    if (!session().device) GTEST_SKIP() << session().skip_reason;  // "no CUDA device: <why>"
  }
};

using CudaTest = WithCuda<::testing::Test>;
template <class Param>
using CudaParamTest = WithCuda<::testing::TestWithParam<Param>>;

}  // namespace tessera::cuda::test
