// The open CUDA device (see device.h).
#include "backends/cuda/device.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "backends/cuda/cuda_error.h"

namespace tessera::cuda {

CudaDevice::CudaDevice(int32_t index) : index_(index) {
  activate();
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  CachingAllocator::Backing backing;
  backing.allocate = [](uint64_t size) -> void* {
    void* p = nullptr;
    if (cudaMalloc(&p, size) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return p;
  };
  backing.free = [](void* p) { cudaFree(p); };
  memory_ = std::make_unique<CachingAllocator>(std::move(backing));
  try {
    error_word_ = static_cast<kit::DeviceErrorWord*>(allocate_or_throw(sizeof(kit::DeviceErrorWord), "the error word"));
    void* seen = nullptr;
    check_cuda(cudaMallocHost(&seen, sizeof(kit::DeviceErrorWord)), "the error word");
    error_seen_ = static_cast<kit::DeviceErrorWord*>(seen);
    check_cuda(cudaMemsetAsync(error_word_, 0, sizeof(kit::DeviceErrorWord), stream_), "the error word");
  } catch (...) {
    release_error_word();
    memory_.reset();
    cudaStreamDestroy(stream_);
    throw;
  }
}

void CudaDevice::release_error_word() noexcept {
  if (error_seen_) cudaFreeHost(error_seen_);
  if (error_word_) memory_->release(error_word_);
  error_seen_ = nullptr;
  error_word_ = nullptr;
}

CudaDevice::~CudaDevice() {
  cudaSetDevice(index_);  // not activate(): a destructor must not throw
  cudaStreamSynchronize(stream_);
  if (cublas_) cublasDestroy(cublas_);
  for (int i = 0; i < 2; ++i) {
    if (staged_[i]) cudaEventDestroy(staged_[i]);
    if (stage_[i]) cudaFreeHost(stage_[i]);
  }
  release_error_word();
  memory_.reset();  // the cache back to the device
  cudaStreamDestroy(stream_);
}

void CudaDevice::activate() const { check_cuda(cudaSetDevice(index_), "cudaSetDevice"); }

cublasHandle_t CudaDevice::cublas() {
  if (!cublas_) {
    check_cublas(cublasCreate(&cublas_), "cublasCreate");
    check_cublas(cublasSetStream(cublas_, stream_), "cublasSetStream");
  }
  return cublas_;
}

void* CudaDevice::allocate_or_throw(uint64_t size, const char* what) {
  void* p = memory_->allocate(size);
  if (p != nullptr) return p;
  size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  cudaGetLastError();
  throw CudaError(TSR_E_OUT_OF_MEMORY, std::string(what) + ": " + std::to_string(size) + " bytes do not fit on cuda:" +
                                           std::to_string(index_) + " (" + std::to_string(free_bytes) + " of " +
                                           std::to_string(total_bytes) + " bytes free)");
}

tsr_buffer CudaDevice::alloc(uint64_t size, const char* slot) {
  activate();
  auto* buffer = new tsr_buffer_impl{};
  try {
    buffer->data = static_cast<std::byte*>(allocate_or_throw(size, slot));
  } catch (...) {
    delete buffer;
    throw;
  }
  buffer->size = size;
  return buffer;
}

void CudaDevice::free(tsr_buffer buffer) noexcept {
  if (buffer == nullptr) return;
  memory_->release(buffer->data);  // stream order keeps queued kernels' reads before any reuse
  delete buffer;
}

bool CudaDevice::staging_ready() {
  if (stage_[1] != nullptr) return true;
  for (int i = 0; i < 2; ++i) {
    if (cudaMallocHost(&stage_[i], kStageBytes) != cudaSuccess ||
        cudaEventCreateWithFlags(&staged_[i], cudaEventDisableTiming) != cudaSuccess) {
      cudaGetLastError();
      for (int j = 0; j <= i; ++j) {
        if (staged_[j]) cudaEventDestroy(staged_[j]);
        if (stage_[j]) cudaFreeHost(stage_[j]);
        staged_[j] = nullptr;
        stage_[j] = nullptr;
      }
      return false;
    }
  }
  return true;
}

void CudaDevice::write(tsr_buffer dst, uint64_t offset, const void* src, uint64_t size) {
  if (size == 0) return;
  activate();
  if (size <= kStageBytes || !staging_ready()) {
    check_cuda(cudaMemcpyAsync(dst->data + offset, src, size, cudaMemcpyHostToDevice, stream_), "buffer_write");
  } else {
    const auto* from = static_cast<const std::byte*>(src);
    for (uint64_t done = 0, i = 0; done < size; ++i) {
      const int b = static_cast<int>(i % 2);
      const uint64_t n = std::min(kStageBytes, size - done);
      if (i >= 2) check_cuda(cudaEventSynchronize(staged_[b]), "buffer_write");  // its last copy is done
      std::memcpy(stage_[b], from + done, n);
      check_cuda(cudaMemcpyAsync(dst->data + offset + done, stage_[b], n, cudaMemcpyHostToDevice, stream_),
                 "buffer_write");
      check_cuda(cudaEventRecord(staged_[b], stream_), "buffer_write");
      done += n;
    }
  }
  // The host may reuse `src` when the call returns.
  wait("buffer_write");
}

void CudaDevice::read(tsr_buffer src, uint64_t offset, void* dst, uint64_t size) {
  if (size == 0) return;
  activate();
  check_cuda(cudaMemcpyAsync(dst, src->data + offset, size, cudaMemcpyDeviceToHost, stream_), "buffer_read");
  wait("buffer_read");
}

void CudaDevice::end_step() {
  in_step_ = false;
  activate();
  wait("a kernel of the step");
}

ErrorSink CudaDevice::errors_for(kit::DeviceErrorText text) { return {error_word_, calls_.add(std::move(text))}; }

void CudaDevice::after_call() {
  if (!in_step_ && calls_.may_report()) wait("a kernel");
}

void CudaDevice::wait(const char* what) {
  if (!calls_.may_report()) {
    calls_.clear();
    check_cuda(cudaStreamSynchronize(stream_), what);
    check_cuda(cudaGetLastError(), what);
    return;
  }
  // The word is copied behind the kernels that may write it, and read after the wait.
  check_cuda(cudaMemcpyAsync(error_seen_, error_word_, sizeof(kit::DeviceErrorWord), cudaMemcpyDeviceToHost, stream_),
             what);
  check_cuda(cudaStreamSynchronize(stream_), what);
  check_cuda(cudaGetLastError(), what);
  if (error_seen_->code == 0) {
    calls_.clear();
    return;
  }
  const kit::DeviceErrorWord word = *error_seen_;
  error_seen_->code = 0;
  check_cuda(cudaMemsetAsync(error_word_, 0, sizeof(kit::DeviceErrorWord), stream_), what);
  throw CudaError(TSR_E_INVALID_ARGUMENT, calls_.take_message(word));
}

CudaDevice::Scratch::Scratch(CudaDevice& device, uint64_t bytes)
    : device_(device), data_(device.allocate_or_throw(bytes, "scratch memory")) {}

CudaDevice::Scratch::~Scratch() { device_.memory_->release(data_); }

}  // namespace tessera::cuda
