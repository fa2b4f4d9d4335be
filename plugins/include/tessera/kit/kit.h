// The plugin kit in one include: what a backend or kernel plugin needs besides the C
// ABI (plugin_abi.h) to check its arguments, keep exceptions inside, and read and write
// every dtype (block layouts, dequantisation, quantisers).
#pragma once

#include <tessera/plugin_abi.h>

#include <tessera/kit/attention_tokens.h>
#include <tessera/kit/block_check.h>
#include <tessera/kit/block_values.h>
#include <tessera/kit/call_args.h>
#include <tessera/kit/custom_call.h>
#include <tessera/kit/dequantize.h>
#include <tessera/kit/device_backend.h>
#include <tessera/kit/dtype_traits.h>
#include <tessera/kit/guard.h>
#include <tessera/kit/half.h>
#include <tessera/kit/kv_quant.h>
#include <tessera/kit/kernel_error.h>
#include <tessera/kit/last_error.h>
#include <tessera/kit/moe_check.h>
#include <tessera/kit/op_shapes.h>
#include <tessera/kit/plugin_slots.h>
#include <tessera/kit/quant_blocks.h>
#include <tessera/kit/quantize.h>
#include <tessera/kit/rope_terms.h>
#include <tessera/kit/tensor_check.h>
#include <tessera/kit/tensor_info.h>
