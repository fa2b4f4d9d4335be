/* Tessera plugin ABI: the one C header a backend or kernel plugin builds against.
 * A plugin is a shared library exporting `tessera_plugin_entry`, which returns a
 * versioned table of function pointers (plugin -> device -> buffer -> step).
 *
 * Rules of the boundary:
 *  - Only C types cross it. No C++ exception may escape a plugin function: every
 *    fallible call returns a tsr_status, and the device's `last_error` explains it.
 *  - The host checks `abi_version` and `struct_size` before touching any other field.
 *  - Tensors are dense and row-major: shape[0] is the outermost dimension,
 *    shape[ndim-1] the innermost (contiguous) one. Quantised dtypes are stored in
 *    blocks along the innermost dimension.
 *  - Ownership: buffers belong to the device that allocated them; the host frees
 *    every buffer it allocated before closing the device, and closes every device
 *    before unloading the library.
 *  - Layout: new fields are only ever added at the END of a struct. The plugin table
 *    says its size in `struct_size`; tsr_tensor travels in arrays, so its size is part
 *    of the ABI version: a plugin and a host built from different revisions of this
 *    header with the same TSR_ABI_VERSION must agree on it (rebuild while the version
 *    is unreleased).
 *
 * Two kinds of plugin share this table:
 *  - A backend (`extends` NULL) drives devices of its own: it fills the device and
 *    buffer slots, and its kernels run on its devices.
 *  - A kernel plugin (`extends` names a backend, e.g. "cpu") adds or overrides kernels
 *    of that backend. Its kernels run on the backend's devices, interleaved with the
 *    backend's own kernels, and read and write tensors through `tsr_tensor.host_data`.
 *    See `tsr_plugin.extends` for every rule.
 */
#ifndef TESSERA_PLUGIN_ABI_H
#define TESSERA_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of the structs or enums below. Version 4 added
   ops declared by plugins (tsr_op_decl, TSR_OP_CUSTOM, tsr_kernel_desc.op_name).
   Appending ops to tsr_op (before TSR_OP_COUNT, after every existing one, which keep
   their codes) is a compatible change and keeps the version: a plugin built before
   them registers no kernel for them, and the host runs those nodes where a kernel is
   (the CPU's), as for any op a backend lacks; a host built before them refuses a
   plugin that registers one ("op N is not a known op"). SUB, AFFINE and CLAMP, then
   MOE_ROUTE, MOE_MATMUL and MOE_COMBINE were appended so. LAYER_NORM's weight became
   optional the same way: only a model that leaves it out sends such a call, which a
   kernel built before refuses with its message; so did the norms' gains per group (w
   of C values), which a kernel built before refuses as a w of the wrong shape. */
#define TSR_ABI_VERSION 4u

/* Name of the symbol every plugin exports. */
#define TSR_PLUGIN_ENTRY_SYMBOL "tessera_plugin_entry"

#if defined(_WIN32)
#define TSR_PLUGIN_EXPORT __declspec(dllexport)
#else
#define TSR_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---- status codes ------------------------------------------------------- */
typedef int32_t tsr_status;
enum {
  TSR_OK = 0,
  TSR_E_INVALID_ARGUMENT = 1, /* a shape, dtype or parameter the kernel cannot take */
  TSR_E_OUT_OF_MEMORY = 2,    /* the device could not allocate */
  TSR_E_UNSUPPORTED = 3,      /* the slot or op is not implemented */
  TSR_E_DEVICE = 4,           /* the device failed (driver error, lost device) */
  TSR_E_INTERNAL = 5          /* a bug or an exception caught at the boundary */
};

/* ---- data types ----------------------------------------------------------
 * The block formats are GGUF's (ggml's): a row of a tensor is a whole number of
 * blocks, each holding `elements` values in `bytes` bytes, little-endian, packed
 * without padding. "d", "m", "dmin" are IEEE halves. <tessera/kit/quant_blocks.h>
 * declares every block as a struct and <tessera/kit/dequantize.h> gives the value
 * of every element (the reference, equal bit for bit to gguf-py's dequantize).
 *   format   elements bytes  layout and value of element i
 *   Q8_0        32     34   d, int8 q[32]: d * q[i]
 *   Q4_0        32     18   d, u8 qs[16]: nibble i of qs (low nibbles are 0..15,
 *                           high nibbles 16..31) = u; d * (u - 8)
 *   Q4_1        32     20   d, m, qs[16] as Q4_0: d * u + m
 *   Q5_0        32     22   d, u32 qh, qs[16]: u = nibble | bit i of qh << 4; d * (u - 16)
 *   Q5_1        32     24   d, m, qh, qs as Q5_0: d * u + m
 *   IQ4_NL      32     18   d, qs as Q4_0: d * kvalues[u], a fixed non-linear table
 *   Q2_K       256     84   16 sub-blocks of 16; 2-bit quants, 4-bit scale and min
 *   Q3_K       256    110   16 sub-blocks of 16; 3-bit quants, 6-bit signed scales
 *   Q4_K       256    144   8 sub-blocks of 32; 4-bit quants, 6-bit scale and min
 *   Q5_K       256    176   8 sub-blocks of 32; 5-bit quants, 6-bit scale and min
 *   Q6_K       256    210   16 sub-blocks of 16; 6-bit quants, int8 scales
 *   IQ4_XS     256    136   8 sub-blocks of 32; IQ4_NL's table, 6-bit signed scales
 * Codes are part of the ABI: new types are only ever appended.                */
typedef enum tsr_dtype {
  TSR_DTYPE_F32 = 0,
  TSR_DTYPE_F16 = 1,  /* IEEE half */
  TSR_DTYPE_BF16 = 2,
  TSR_DTYPE_Q8_0 = 3,
  TSR_DTYPE_I32 = 4,
  TSR_DTYPE_Q4_0 = 5,
  TSR_DTYPE_Q4_1 = 6,
  TSR_DTYPE_Q5_0 = 7,
  TSR_DTYPE_Q5_1 = 8,
  TSR_DTYPE_Q2_K = 9,
  TSR_DTYPE_Q3_K = 10,
  TSR_DTYPE_Q4_K = 11,
  TSR_DTYPE_Q5_K = 12,
  TSR_DTYPE_Q6_K = 13,
  TSR_DTYPE_IQ4_NL = 14,
  TSR_DTYPE_IQ4_XS = 15,
  TSR_DTYPE_COUNT
} tsr_dtype;

/* ---- ops ------------------------------------------------------------------
 * Each op lists its inputs, its output and its params struct. "T" is the number
 * of tokens in the step. Unless stated otherwise, activations are F32.
 * The "key dtype" is the dtype a kernel is registered under.            */
typedef enum tsr_op {
  /* in: [0] table [R, C] (any dtype but I32: key), [1] idx I32 [N]. out: [N, C] F32.
     out[i, :] = table[idx[i], :]. Embedding lookup and output row selection. */
  TSR_OP_GET_ROWS = 0,
  /* in: [0] x [N, C], [1] w [G]. out [N, C]. params tsr_norm_params.
     Each run of G = group (or C when group is 0) columns is one normalised vector:
     out = x / sqrt(mean(x^2) + eps) * (w or 1 + w). With G < C, w may instead hold C
     values (any shape, e.g. [heads, head_dim]): the vector at columns g*G .. g*G+G-1
     takes w[g*G ..], a gain per group (per-head norms with a weight per head). */
  TSR_OP_RMS_NORM = 1,
  /* in: [0] x [N, C], optional [1] w [G], optional [2] b [G] (only with w). out [N, C].
     params tsr_norm_params. Groups, and w (then b) per group, as for RMS_NORM.
     out = (x - mean) / sqrt(var + eps) * (w or 1 + w) + b; without w there is no gain
     (and weight_plus_one is ignored): out = (x - mean) / sqrt(var + eps), a LayerNorm
     without parameters (OLMo). */
  TSR_OP_LAYER_NORM = 2,
  /* in: [0] x [N, K] F32, [1] w [M, K] (key: any dtype but I32). out [N, M].
     out[n, m] = sum_k x[n, k] * w[m, k] */
  TSR_OP_MATMUL = 3,
  /* in: [0] a, [1] b (same shape, or b of shape [C] broadcast over rows). out = a + b */
  TSR_OP_ADD = 4,
  /* in: [0] a, [1] b (same shape, or b of shape [C] broadcast over rows). out = a * b */
  TSR_OP_MUL = 5,
  /* in: [0] x. out = x * sigmoid(x) */
  TSR_OP_SILU = 6,
  /* in: [0] x. out = 0.5 x (1 + erf(x / sqrt 2)) */
  TSR_OP_GELU = 7,
  /* in: [0] gate [N, C], [1] up [N, C]. out = silu(gate) * up */
  TSR_OP_SWIGLU = 8,
  /* in: [0] x [T, n_heads * head_dim], [1] pos I32 [T], optional [2] freq_factors F32
     [n_rot / 2] (pair i's angle is divided by freq_factors[i]: GGUF's rope_freqs).
     out same shape as x. params tsr_rope_params. Rotates the first n_rot dims of every head. */
  TSR_OP_ROPE = 9,
  /* in: [0] x [T, n_kv_heads * head_dim] F32, [1] slot I32 [T].
     out: the cache [n_blocks, block_size, n_kv_heads * head_dim] (key dtype),
     written in place: row slot[t] (= block * block_size + offset) receives x[t].
     params tsr_kv_write_params. */
  TSR_OP_KV_WRITE = 10,
  /* in: [0] q [T, n_heads * head_dim] F32,
         [1] k_cache, [2] v_cache [n_blocks, block_size, n_kv_heads * head_dim] (key dtype),
         [3] pos I32 [T]         absolute position of each token in its sequence,
         [4] seq I32 [T]         index of each token's sequence in the block tables,
         [5] block_tables I32 [n_seqs, max_blocks_per_seq].
     out: [T, n_heads * head_dim]. params tsr_attention_params.
     Token t of sequence s attends to the keys at positions 0..pos[t] of s (causal),
     found through the block table; query head h reads KV head
     h / (n_heads / n_kv_heads). */
  TSR_OP_ATTENTION = 11,
  /* in: [0] x. out = x * scale. params tsr_scale_params. */
  TSR_OP_SCALE = 12,
  /* in: [0] x. out = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) */
  TSR_OP_GELU_TANH = 13,
  /* in: [0] x. out = max(x, 0) */
  TSR_OP_RELU = 14,
  /* in: [0] x. out = max(x, 0)^2 */
  TSR_OP_RELU_SQR = 15,
  /* in: [0] x. out = scale * tanh(x / scale). params tsr_scale_params (scale > 0). */
  TSR_OP_SOFTCAP = 16,
  /* in: [0] x [N, C]. out [N, groups * count]. params tsr_slice_params.
     out[n, g * count + j] = x[n, start + g * stride + j]: a column range (groups = 1),
     or one part of a fused per-head projection (groups = heads). */
  TSR_OP_SLICE = 17,
  /* An op a plugin declares (tsr_op_decl): the kernel's op_name says which. Inputs and
     output as its declaration says (the output is F32); params tsr_custom_params. */
  TSR_OP_CUSTOM = 18,
  /* in: [0] a, [1] b (same shape, or b of shape [C] broadcast over rows). out = a - b */
  TSR_OP_SUB = 19,
  /* in: [0] x. out = x * scale + bias. params tsr_affine_params. Negation (scale -1),
     a number added to or subtracted from a tensor, and a tensor subtracted from a number. */
  TSR_OP_AFFINE = 20,
  /* in: [0] x. out = min(max(x, lo), hi); a NaN x stays NaN. params tsr_clamp_params
     (lo <= hi; either may be infinite, neither NaN). */
  TSR_OP_CLAMP = 21,
  /* Mixture of experts, three ops: a router's scores choose k of E experts per token
     (MOE_ROUTE), the chosen experts' matrices multiply that token's rows (MOE_MATMUL,
     reading only those experts), and their outputs are summed with the route's weights
     (MOE_COMBINE). A route [T, 2k] F32 holds, per token, the chosen experts' indices in
     columns 0..k-1 (whole numbers 0..E-1, as floats), highest score first, ties to the
     lower index; and their weights in columns k..2k-1.
     MOE_ROUTE: in: [0] logits [T, E] F32. out: the route [T, 2k]. params
     tsr_moe_route_params. p = softmax of the row (or sigmoid of each logit); the k
     largest p are chosen; weight = p, divided by the sum of the k chosen p when
     normalize is set, then times scale. */
  TSR_OP_MOE_ROUTE = 22,
  /* in: [0] x [T, K] or [T, k * K] F32, [1] experts [E, M, K] (key: any dtype but I32),
     [2] route [T, 2k] F32. out [T, k * M]: slot j of token t,
     out[t, j * M + m] = sum_c x_tj[c] * experts[e, m, c] with e = route[t, j], where
     x_tj is row t of x, or its columns j * K .. j * K + K - 1 when x has k * K columns
     (the output of an earlier MOE_MATMUL, element-wise ops applied). */
  TSR_OP_MOE_MATMUL = 23,
  /* in: [0] y [T, k * C] F32, [1] route [T, 2k] F32. out [T, C]:
     out[t, c] = sum_j route[t, k + j] * y[t, j * C + c]. */
  TSR_OP_MOE_COMBINE = 24,
  TSR_OP_COUNT
} tsr_op;

typedef struct tsr_norm_params {
  float eps;
  int32_t weight_plus_one; /* nonzero: multiply by (1 + w) instead of w */
  int32_t group;           /* 0: the whole row; g > 0: each run of g columns (per-head norm) */
} tsr_norm_params;

typedef enum tsr_rope_pairing {
  TSR_ROPE_INTERLEAVED = 0, /* rotate (v[2i], v[2i+1]): LLaMA/GGUF "normal" layout */
  TSR_ROPE_NEOX = 1         /* rotate (v[i], v[i + n_rot/2]): split halves */
} tsr_rope_pairing;

typedef struct tsr_rope_params {
  float theta;      /* base, e.g. 10000 */
  float freq_scale; /* linear position scaling: angle uses pos * freq_scale (1 = none) */
  int32_t n_heads;
  int32_t head_dim;
  int32_t n_rot;    /* rotated dims per head, even, <= head_dim */
  int32_t pairing;  /* tsr_rope_pairing */
  /* YaRN (arXiv 2309.00071), used when ext_factor > 0: dimension pair i0/2 rotates by
     a mix of the interpolated (pos * freq_scale) and the original angle, with weight
     ramp = ext_factor * (1 - clamp((i0/2 - low) / max(0.001, high - low), 0, 1)) on the
     original. With d(b) = n_rot ln(n_ctx_orig / (2 pi b)) / (2 ln theta), the pair
     index that turns b times in n_ctx_orig tokens: low = max(0, floor(d(beta_fast))),
     high = min(n_rot - 1, ceil(d(beta_slow))). cos and sin are multiplied by
     attn_factor * (1 + 0.1 ln(1 / freq_scale)). */
  float ext_factor;
  float attn_factor;
  float beta_fast;
  float beta_slow;
  int32_t n_ctx_orig;
  /* Llama 3.1 frequency scaling, used when llama3_factor > 0 (not with YaRN): pair i's
     frequency f = theta^(-2i / n_rot) has wavelength w = 2 pi / f; with L = n_ctx_orig,
     w < L / high keeps f, w > L / low uses f / factor, and in between
     s = (L / w - low) / (high - low) gives (1 - s) f / factor + s f. */
  float llama3_factor;
  float llama3_low_freq_factor;
  float llama3_high_freq_factor;
} tsr_rope_params;

typedef struct tsr_kv_write_params {
  int32_t n_kv_heads;
  int32_t head_dim;
  int32_t block_size;
} tsr_kv_write_params;

typedef struct tsr_attention_params {
  int32_t n_heads;
  int32_t n_kv_heads;
  int32_t head_dim;
  int32_t block_size;
  int32_t n_seqs;
  int32_t max_blocks_per_seq;
  float scale;   /* applied to q.k, usually 1/sqrt(head_dim) */
  int32_t window; /* 0: full causal; w > 0: keys at positions > pos - w only */
  float softcap;  /* 0: none; c > 0: score = c * tanh(score / c) */
  /* 0: none; b > 0: ALiBi, score += slope(h) * (key_pos - pos) after the soft cap, with n2 the largest
     power of two <= n_heads, slope(h) = 2^(-b (h + 1) / n2) for h < n2, else
     2^(-b (2 (h - n2) + 1) / (2 n2)) (the ALiBi paper's slopes, b = 8). */
  float alibi_max_bias;
} tsr_attention_params;

typedef struct tsr_slice_params {
  int64_t start;  /* first column read */
  int64_t count;  /* columns per group */
  int64_t stride; /* columns between the starts of consecutive groups */
  int64_t groups; /* >= 1 */
} tsr_slice_params;

typedef struct tsr_scale_params {
  float scale;
} tsr_scale_params;

typedef struct tsr_affine_params {
  float scale;
  float bias;
} tsr_affine_params;

typedef struct tsr_clamp_params {
  float lo;
  float hi;
} tsr_clamp_params;

typedef enum tsr_moe_gating {
  TSR_MOE_SOFTMAX = 0, /* p = softmax over the row's E scores (Mixtral, Qwen MoE) */
  TSR_MOE_SIGMOID = 1  /* p = sigmoid of each score (DeepSeek V3 style) */
} tsr_moe_gating;

typedef struct tsr_moe_route_params {
  int32_t k;         /* experts chosen per token, 1 <= k <= E */
  int32_t gating;    /* tsr_moe_gating */
  int32_t normalize; /* nonzero: the k weights are divided by their sum */
  float scale;       /* the weights are multiplied by this last (1: none); finite */
} tsr_moe_route_params;

/* ---- ops declared by plugins ---------------------------------------------
 * A plugin may add ops to the language: it declares each one (name, inputs with shape
 * rules, typed attributes, the output's shape) in tsr_plugin.ops, and any plugin may
 * then register kernels for it (tsr_kernel_desc with op TSR_OP_CUSTOM and op_name).
 * A model definition calls it by its name, `acme.fused_silu_mul(a, b, alpha: 0.5)`;
 * the host checks each call against the declaration before anything runs, so a kernel
 * sees only calls its declaration allows (the kit's check_custom_call checks again).
 * Activations are F32, so every input but the key input is F32, and the output is F32. */
typedef enum tsr_attr_type {
  TSR_ATTR_INT = 0,   /* a whole number, in tsr_attr_value.i */
  TSR_ATTR_FLOAT = 1  /* a real number, in tsr_attr_value.f */
} tsr_attr_type;

typedef union tsr_attr_value {
  int64_t i;
  double f;
} tsr_attr_value;

typedef struct tsr_attr_decl {
  const char* name;      /* [a-z_][a-z0-9_]*, unique in the op */
  tsr_attr_type type;
  int32_t required;      /* nonzero: every call gives it; zero: default_value when left out */
  tsr_attr_value default_value;
  const char* help;      /* one line for diagnostics and `tessera backends`; may be NULL */
} tsr_attr_decl;

/* The shape an input must have, relative to an earlier input `ref`. Tensors of a
   definition are vectors [C] or matrices [R, C]; R may be the step's token count. */
typedef enum tsr_shape_rule {
  TSR_SHAPE_ANY = 0,     /* any shape */
  TSR_SHAPE_MATRIX = 1,  /* a matrix [R, C] */
  TSR_SHAPE_SAME_AS = 2, /* the shape of input ref */
  TSR_SHAPE_ROW_OF = 3   /* a vector [C], C the last dimension of input ref (a gain, a bias) */
} tsr_shape_rule;

typedef struct tsr_input_decl {
  const char* name;      /* for diagnostics: "gate" */
  tsr_shape_rule rule;
  int32_t ref;           /* SAME_AS, ROW_OF: an earlier input's index; else ignored */
  int32_t optional;      /* nonzero: may be left out (only trailing inputs may be) */
} tsr_input_decl;

typedef struct tsr_op_decl {
  /* "<plugin>.<op>": the declaring plugin's own name, a dot, then [a-z_][a-z0-9_]*.
     Unique among the loaded plugins. */
  const char* name;
  const char* help;      /* one line: what the op computes; may be NULL */
  int32_t n_inputs;      /* 1..8 */
  const tsr_input_decl* inputs;
  int32_t n_attrs;       /* 0..16 */
  const tsr_attr_decl* attrs;
  /* The output has the shape of input output_like (a required one); when
     output_columns names a TSR_ATTR_INT attribute, its last dimension is that
     attribute's value instead (which must be > 0). */
  int32_t output_like;
  const char* output_columns; /* NULL: the last dimension of output_like */
  /* Kernels for the op are registered under the dtype of this (required) input: a
     weight may be quantised; every other input is F32. */
  int32_t key_input;
} tsr_op_decl;

/* The params of a TSR_OP_CUSTOM call: which op, and every attribute of its
   declaration in declaration order, defaults filled in. Valid during the call only. */
typedef struct tsr_custom_params {
  const char* op_name;
  int32_t n_attrs;
  const tsr_attr_value* attrs;
} tsr_custom_params;

/* ---- handles and tensors ------------------------------------------------- */
typedef struct tsr_buffer_impl* tsr_buffer; /* opaque, defined by the plugin */

typedef struct tsr_tensor {
  tsr_buffer buffer; /* the buffer holding the data, on the kernel's device */
  uint64_t offset;   /* byte offset of element 0 in the buffer */
  tsr_dtype dtype;
  int32_t ndim;      /* 1..4 */
  int64_t shape[4];  /* outermost first; entries past ndim are 1 */
  /* Host address of element 0 (the buffer's buffer_host_ptr + offset) when the buffer
     is host-visible, else NULL. Filled by the host for every tensor of a call. A
     backend's own kernels may ignore it; a kernel plugin's kernels read and write the
     data only through it (their `buffer` is another plugin's handle). The host
     guarantees that the whole tensor lies inside its buffer. */
  void* host_data;
} tsr_tensor;

typedef struct tsr_op_call {
  tsr_op op;
  const void* params; /* the op's params struct, or NULL for ops without one */
  int32_t n_inputs;
  const tsr_tensor* inputs;
  const tsr_tensor* output;
} tsr_op_call;

/* Runs (or enqueues, for asynchronous devices) one op on a device. A kernel plugin's
   kernels are called with device NULL: they run synchronously on the host's thread
   and report a failure through the plugin's last_error(NULL). */
typedef tsr_status (*tsr_kernel_fn)(void* device, const tsr_op_call* call);

typedef struct tsr_kernel_desc {
  tsr_op op;
  tsr_dtype dtype;   /* key dtype, see the op list */
  int32_t priority;  /* the host picks the highest; built-in kernels use 0 */
  const char* name;  /* for logs and `tessera backends` */
  tsr_kernel_fn run;
  /* op TSR_OP_CUSTOM: the declared op this kernel runs ("acme.fused_silu_mul"), declared
     by this plugin or another; a kernel for an op no loaded plugin declares is never
     chosen. NULL for every other op. */
  const char* op_name;
} tsr_kernel_desc;

/* ---- devices ------------------------------------------------------------- */
typedef struct tsr_device_info {
  char name[128];
  char description[256];   /* vendor, driver, features: free text for humans */
  uint64_t memory_bytes;   /* usable memory; 0 if unknown */
  int32_t host_visible;    /* nonzero: buffer_host_ptr works for every buffer */
} tsr_device_info;

typedef struct tsr_device_options {
  uint32_t struct_size; /* sizeof(tsr_device_options) as the host knows it */
  int32_t n_threads;    /* CPU-side threads; 0 = plugin default */
} tsr_device_options;

/* ---- the plugin table ---------------------------------------------------- */
typedef struct tsr_plugin {
  uint32_t abi_version; /* TSR_ABI_VERSION the plugin was built with */
  uint32_t struct_size; /* sizeof(tsr_plugin) the plugin was built with */
  const char* name;     /* short, lower case: "cpu", "vulkan", ... */
  const char* version;  /* the plugin's own version string */

  /* Devices this plugin can drive now; 0 when none (no driver, no hardware).
     Must not fail or throw: a plugin without devices simply reports 0. */
  int32_t (*device_count)(void);
  /* Why device_count() is 0 (e.g. "no Vulkan loader"), or NULL. */
  const char* (*unavailable_reason)(void);
  tsr_status (*device_info)(int32_t index, tsr_device_info* out);
  tsr_status (*device_open)(int32_t index, const tsr_device_options* options, void** device);
  void (*device_close)(void* device);
  /* Message for the last failure on this device (valid until the next call); with
     device NULL, the last failure that had no device (device_open, device_info, and
     every kernel of a kernel plugin). */
  const char* (*last_error)(void* device);

  /* Buffers: size in bytes; contents undefined after alloc. */
  tsr_status (*buffer_alloc)(void* device, uint64_t size, tsr_buffer* out);
  void (*buffer_free)(void* device, tsr_buffer buffer);
  /* Optional (may be NULL): host address of the buffer's first byte. */
  void* (*buffer_host_ptr)(void* device, tsr_buffer buffer);
  /* Optional (may be NULL): wrap host memory the host keeps alive (zero copy);
     the host then uploads through buffer_alloc + buffer_write instead. */
  tsr_status (*buffer_wrap_host)(void* device, void* host_ptr, uint64_t size, tsr_buffer* out);
  tsr_status (*buffer_write)(void* device, tsr_buffer dst, uint64_t offset, const void* src,
                             uint64_t size);
  tsr_status (*buffer_read)(void* device, tsr_buffer src, uint64_t offset, void* dst,
                            uint64_t size);

  /* A step is the ops of one graph run. Kernels called between step_begin and
     step_end may run asynchronously; step_end returns when all have finished.
     Both optional (NULL = synchronous device). */
  tsr_status (*step_begin)(void* device);
  tsr_status (*step_end)(void* device);

  int32_t kernel_count;
  const tsr_kernel_desc* kernels;

  /* NULL: a backend, with devices of its own (every required slot above is set).
     Otherwise the name of the backend this kernel plugin extends, e.g. "cpu":
      - Its kernels are candidates for that backend's devices: per (op, key dtype), the
        host runs the highest priority among the backend's kernels and those of every
        loaded plugin extending it; on a tie the backend's own kernel stays, then the
        extension loaded first wins.
      - Its kernels get device NULL and reach tensors only through host_data. The host
        registers them only for a backend whose buffers are host-visible
        (buffer_host_ptr set) and whose kernels are synchronous (step_begin and
        step_end NULL), so the data a kernel reads is the data earlier kernels wrote.
      - Required: name (its own, not the one it extends) and last_error (called with
        NULL: the message of the last failed kernel). Every device, buffer and step
        slot may be NULL and is never called; device_count is treated as 0.
      - It cannot be opened as a backend, and a plugin cannot extend a kernel plugin. */
  const char* extends;

  /* Ops this plugin adds to the language (see tsr_op_decl); op_count 0 and ops NULL
     for none. A backend or a kernel plugin may declare ops; their kernels are listed
     in `kernels` like any other (op TSR_OP_CUSTOM, op_name set). */
  int32_t op_count;
  const tsr_op_decl* ops;
} tsr_plugin;

/* The entry point: returns a table with static storage duration, never NULL. */
typedef const tsr_plugin* (*tsr_plugin_entry_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_PLUGIN_ABI_H */
