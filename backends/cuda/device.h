// An open CUDA device: its stream (every kernel, copy and cuBLAS call of the device is
// ordered on it), its cuBLAS handle, the caching allocator of its memory, the error word
// its kernels report bad indices through (kit/device_errors.h), and the last error of
// the ABI. The host waits for the stream only to read (buffer reads, the end of a step,
// an index-checking kernel run outside a step) and to let the caller reuse what it wrote.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <tessera/kit/device_errors.h>
#include <tessera/kit/last_error.h>
#include <tessera/plugin_abi.h>

#include "backends/cuda/buffer.h"
#include "backends/cuda/caching_allocator.h"
#include "backends/cuda/error_sink.h"

namespace tessera::cuda {

class CudaDevice {
 public:
  explicit CudaDevice(int32_t index);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  int32_t index() const { return index_; }
  cudaStream_t stream() const { return stream_; }
  // Makes this device current on the calling thread (the host may call from any thread).
  void activate() const;
  // The cuBLAS handle, created at the first GEMM (its creation costs a few hundred ms).
  cublasHandle_t cublas();

  // Device memory; an out-of-memory failure names the size and the memory free.
  tsr_buffer alloc(uint64_t size, const char* slot);
  void free(tsr_buffer buffer) noexcept;
  // Writes of more than kStageBytes go through two pinned staging buffers in turn: the
  // copy engine reads pinned memory at full link speed while the host fills the other.
  void write(tsr_buffer dst, uint64_t offset, const void* src, uint64_t size);
  void read(tsr_buffer src, uint64_t offset, void* dst, uint64_t size);
  // A step: its kernels' index errors come back from end_step (or a read inside it),
  // with no wait between kernels. end_step waits for the step's kernels and reports a
  // failure of any of them.
  void begin_step() { in_step_ = true; }
  void end_step();

  // Where the next kernel reports a bad index, `text` making its message.
  ErrorSink errors_for(kit::DeviceErrorText text);
  // After each kernel call: outside a step, a kernel that may report is waited for, so
  // its error comes back from the call itself.
  void after_call();

  // Scratch memory for one kernel call, back to the cache at the end of the scope:
  // safe to reuse at once, since later work on the same stream runs after it.
  class Scratch {
   public:
    Scratch(CudaDevice& device, uint64_t bytes);
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    void* data() const { return data_; }

   private:
    CudaDevice& device_;
    void* data_ = nullptr;
  };

  void set_error(std::string message) noexcept { error_.set(message); }
  const char* last_error() const { return error_.get(); }

 private:
  static constexpr uint64_t kStageBytes = uint64_t{16} << 20;

  void* allocate_or_throw(uint64_t size, const char* what);
  // The staging buffers and their events, made at the first large write; false when
  // pinned memory is not available (the write then copies from pageable memory).
  bool staging_ready();
  // Waits for the stream; then throws CudaError(what) for a failed kernel, or the
  // message of a reported index error (the word is zeroed again).
  void wait(const char* what);
  void release_error_word() noexcept;

  int32_t index_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::unique_ptr<CachingAllocator> memory_;
  void* stage_[2] = {nullptr, nullptr};
  cudaEvent_t staged_[2] = {nullptr, nullptr};  // recorded after each buffer's copy
  kit::DeviceErrorWord* error_word_ = nullptr;     // device memory
  kit::DeviceErrorWord* error_seen_ = nullptr;     // pinned host copy, read after each wait
  kit::DeviceCalls calls_;                          // the reporting calls since the last wait
  bool in_step_ = false;
  kit::LastError error_;
};

}  // namespace tessera::cuda
