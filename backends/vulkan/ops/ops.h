// The host side of every Vulkan kernel: each validates its call like the CPU kernel
// of the same op and records the dispatch of its shader (backends/vulkan/shaders/).
// Inputs and outputs are as documented in plugin_abi.h.
#pragma once

#include <tessera/plugin_abi.h>

namespace tessera::vulkan {

class VulkanDevice;

void get_rows(VulkanDevice& device, const tsr_op_call& call);    // get_rows.comp
void rms_norm(VulkanDevice& device, const tsr_op_call& call);    // norm.comp
void layer_norm(VulkanDevice& device, const tsr_op_call& call);  // norm.comp
void matmul(VulkanDevice& device, const tsr_op_call& call);      // matmul_vec.comp, matmul_tiled.comp
void add(VulkanDevice& device, const tsr_op_call& call);         // binary.comp
void mul(VulkanDevice& device, const tsr_op_call& call);         // binary.comp
void swiglu(VulkanDevice& device, const tsr_op_call& call);      // binary.comp
void sub(VulkanDevice& device, const tsr_op_call& call);         // binary.comp
void silu(VulkanDevice& device, const tsr_op_call& call);        // unary.comp
void gelu(VulkanDevice& device, const tsr_op_call& call);        // unary.comp
void scale(VulkanDevice& device, const tsr_op_call& call);       // unary.comp
void gelu_tanh(VulkanDevice& device, const tsr_op_call& call);   // unary.comp
void relu(VulkanDevice& device, const tsr_op_call& call);        // unary.comp
void relu_sqr(VulkanDevice& device, const tsr_op_call& call);    // unary.comp
void softcap(VulkanDevice& device, const tsr_op_call& call);     // unary.comp
void affine(VulkanDevice& device, const tsr_op_call& call);      // unary.comp
void clamp(VulkanDevice& device, const tsr_op_call& call);       // unary.comp
void slice(VulkanDevice& device, const tsr_op_call& call);       // slice.comp
void rope(VulkanDevice& device, const tsr_op_call& call);        // rope.comp
void kv_write(VulkanDevice& device, const tsr_op_call& call);    // kv_write.comp
void attention(VulkanDevice& device, const tsr_op_call& call);   // attention.comp
void moe_route(VulkanDevice& device, const tsr_op_call& call);   // moe_route.comp
void moe_matmul(VulkanDevice& device, const tsr_op_call& call);  // moe_matmul.comp
void moe_combine(VulkanDevice& device, const tsr_op_call& call); // moe_combine.comp

}  // namespace tessera::vulkan
